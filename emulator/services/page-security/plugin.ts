import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../../core/tenancy';

/** Page security (spec 4): placeholder until the service lands. */
export function registerPageSecurity(app: FastifyInstance, ctx: EmulatorContext): void {
  void app;
  void ctx;
}
