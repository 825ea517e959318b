import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../../core/tenancy';

/** Load-balancing pools: placeholder until the service lands. */
export function registerLoadBalancing(app: FastifyInstance, ctx: EmulatorContext): void {
  void app;
  void ctx;
}
