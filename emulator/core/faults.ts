import { z } from 'zod';

/**
 * Fault injection (contract: `POST /__emulator/faults`). Faults apply to API requests only:
 * - `latency_ms` delays every matching request before it is handled;
 * - `error_rate` answers that share with `status` (default 503) without handling the request;
 * - `reset_rate` handles the request (its writes commit) and then resets the connection instead
 *   of answering: the response is lost after the service applied it. With `reset_phase: "before"`
 *   the reset comes before handling instead.
 * `paths` limits them to API paths (below `/client/v4/`) matching one of the patterns, where `*`
 * is one path segment and a trailing `**` any rest; `methods` limits them to those methods.
 * `seed` makes the random choices repeatable.
 */
export const faultConfigSchema = z
  .object({
    error_rate: z.number().min(0).max(1).default(0),
    status: z.number().int().min(500).max(599).default(503),
    latency_ms: z.number().int().min(0).max(60_000).default(0),
    reset_rate: z.number().min(0).max(1).default(0),
    reset_phase: z.enum(['before', 'after']).default('after'),
    paths: z.array(z.string().min(1)).optional(),
    methods: z.array(z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])).optional(),
    seed: z.number().int().optional(),
  })
  .strict();

export type FaultConfig = z.output<typeof faultConfigSchema>;

/** What to do with one request. */
export interface FaultDecision {
  latencyMs: number;
  error: number | undefined;
  reset: 'before' | 'after' | undefined;
}

/** The faults in force and the random source that draws them. */
export class Faults {
  private config: FaultConfig | undefined;
  private random: () => number = Math.random;

  /** Sets the faults in force; an empty config clears them. */
  set(config: FaultConfig): void {
    const active = config.error_rate > 0 || config.reset_rate > 0 || config.latency_ms > 0;
    this.config = active ? config : undefined;
    this.random = config.seed === undefined ? Math.random : mulberry32(config.seed);
  }

  get current(): FaultConfig | undefined {
    return this.config;
  }

  decide(method: string, apiPath: string): FaultDecision {
    const config = this.config;
    const none: FaultDecision = { latencyMs: 0, error: undefined, reset: undefined };
    if (!config) return none;
    if (config.methods && !config.methods.includes(method as never)) return none;
    if (config.paths && !config.paths.some((pattern) => pathMatches(pattern, apiPath))) return none;
    const decision: FaultDecision = { latencyMs: config.latency_ms, error: undefined, reset: undefined };
    if (config.error_rate > 0 && this.random() < config.error_rate) decision.error = config.status;
    else if (config.reset_rate > 0 && this.random() < config.reset_rate) decision.reset = config.reset_phase;
    return decision;
  }
}

/** Whether an API path (no leading slash, no query) matches a fault pattern. */
export function pathMatches(pattern: string, apiPath: string): boolean {
  const want = pattern.replace(/^\/+|\/+$/g, '').split('/');
  const have = apiPath.replace(/^\/+|\/+$/g, '').split('/');
  for (let i = 0; i < want.length; i++) {
    const segment = want[i];
    if (segment === '**') return true;
    if (i >= have.length) return false;
    if (segment !== '*' && segment !== have[i]) return false;
  }
  return want.length === have.length;
}

/** mulberry32: a small seeded generator, so what it drives depends on the seed alone (also the browser cases of tests/browser). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
