import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../../core/tenancy';

/** Account notifications: placeholder until the service lands. */
export function registerNotifications(app: FastifyInstance, ctx: EmulatorContext): void {
  void app;
  void ctx;
}
