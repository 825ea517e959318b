import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../../core/tenancy';

/** Custom hostnames: placeholder until the service lands. */
export function registerCustomHostnames(app: FastifyInstance, ctx: EmulatorContext): void {
  void app;
  void ctx;
}
