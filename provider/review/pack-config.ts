import { createRequire } from 'node:module';
import type { PolicyConfigSchema, StackValidationArgs } from '@pulumi/policy';
import type * as zod from 'zod';
import type * as inventoryRules from '../../rules/inventory';
import type { Acceptance } from '../impact/evaluate';
import type { Kind } from '../impact/statements';

/**
 * The policy pack's configuration: the stack's, so that the pack reads the service with the
 * same `edgeguard:*` settings as the stack's resources, and each CSP policy's own, the scripts or
 * connections a team accepts ({@link acceptedConfigSchema}).
 *
 * The stack's: the engine gives a policy pack the stack's configuration in the `ConfigureStack`
 * call it makes before any analysis (secrets decrypted, as it gives them to a program).
 * `@pulumi/policy` 1.21, the latest, keeps only the stack's tags from that call, and the form of
 * pack this engine runs (an executable, see policy-pack/) gets no `PULUMI_CONFIG` variable either.
 * So {@link keepStackConfig} wraps the pack server's `configureStack` handler as `@pulumi/policy`
 * registers it with its gRPC server, and keeps the configuration in this process's memory: it is
 * never written or printed. tests/engine/review/csp-review.test.ts reviews with the settings in the
 * stack's configuration alone, so a version of `@pulumi/policy` that registers its handlers
 * otherwise fails there.
 */

// ---- The stack's configuration ----

/** The map of a `ConfigureStack` request, as the generated protobuf code gives it. */
interface ConfigMap {
  forEach(callback: (value: string, key: string) => void): void;
}

/** What the wrapper needs of `@grpc/grpc-js`'s server. */
interface GrpcModule {
  Server: {
    prototype: { addService: (this: unknown, service: unknown, implementation: Record<string, unknown>) => void };
  };
}

type Handler = (call: { request: { getConfigMap(): ConfigMap } }, callback: unknown) => unknown;

let stackConfig: ReadonlyMap<string, string> | undefined;
let kept = false;

/** A value of the stack's configuration (`edgeguard:baseUrl`, ...), once the engine has given it. */
export function stackConfigValue(key: string): string | undefined {
  return stackConfig?.get(key);
}

/**
 * How long after answering the engine's `Configure` call the pack waits before its own work. The
 * engine starts the program about 50 ms after that answer; work started at once (loading the
 * review's modules, about 0.15 s of CPU) held up the answer's delivery and the program's start by
 * 60 to 200 ms, against 50 ms with this wait (bench/RESULTS.md, issue 20).
 */
const AFTER_CONFIGURE_MS = 100;

/**
 * Keeps the configuration of the engine's `ConfigureStack` call; to call before the pack is served.
 * `configured` runs {@link AFTER_CONFIGURE_MS} after the engine's `Configure` call (the pack's own
 * configuration, its last call before it runs the program) is answered: the review's read ahead
 * starts then (`warmReview` of `./pack-analysis.ts`); what it throws is its own to catch.
 */
export function keepStackConfig(configured?: () => void): void {
  if (kept) return;
  kept = true;
  // The @grpc/grpc-js that @pulumi/policy loads, resolved from where it is.
  const grpc = createRequire(require.resolve('@pulumi/policy'))('@grpc/grpc-js') as GrpcModule;
  const addService = grpc.Server.prototype.addService;
  grpc.Server.prototype.addService = function (service, implementation) {
    const configureStack = implementation.configureStack as Handler | undefined;
    const configure = implementation.configure as Handler | undefined;
    const wrapped: { configureStack?: Handler; configure?: Handler } = {};
    if (configureStack)
      wrapped.configureStack = (call, callback) => {
        try {
          const config = new Map<string, string>();
          call.request.getConfigMap().forEach((value, key) => config.set(key, value));
          stackConfig = config;
        } catch {
          // A request of another shape leaves the configuration unknown: the settings then come
          // from the environment, and where they are missing the review says which to set.
        }
        return configureStack(call, callback);
      };
    if (configure && configured)
      wrapped.configure = (call, callback) =>
        configure(call, (...answer: unknown[]) => {
          (callback as (...answer: unknown[]) => void)(...answer);
          setTimeout(configured, AFTER_CONFIGURE_MS);
        });
    addService.call(this, service, { ...implementation, ...wrapped });
  };
}

// ---- Each CSP policy's configuration: what the team accepts ----

/** The configuration key of each kind's accepted items. */
export const ACCEPTED_KEY = { scripts: 'acceptedScripts', connections: 'acceptedConnections' } as const;

/** An accepted script or connection of the pack configuration: its URL or a URL prefix, and why. */
type AcceptedItem = { url: string; reason: string } | { prefix: string; reason: string };

/** The JSON schema the engine checks the configuration of a CSP policy of `kind` against. */
export function acceptedConfigSchema(kind: Kind): PolicyConfigSchema {
  const noun = kind === 'scripts' ? 'Script' : 'Connection';
  return {
    properties: {
      [ACCEPTED_KEY[kind]]: {
        type: 'array',
        description: `${noun} URLs ({"url"}) or URL prefixes ({"prefix"}) the team accepts here, each with a "reason".`,
        items: {
          type: 'object',
          properties: {
            url: { type: 'string', minLength: 1 },
            prefix: { type: 'string', minLength: 1 },
            reason: { type: 'string', minLength: 1 },
          },
          required: ['reason'],
          minProperties: 2,
          maxProperties: 2,
          additionalProperties: false,
        },
      },
    },
  };
}

/** The items of `kind` a policy's configuration accepts. */
export function acceptanceOf(args: StackValidationArgs, kind: Kind): Acceptance {
  // Not at the pack's start: the review's modules load it with the client (reviewModules of ./pack-analysis.ts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { z } = require('zod') as typeof zod;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { isUnderPrefix, prefixAddressOf } = require('../../rules/inventory') as typeof inventoryRules;
  const item = z.union([
    z.object({ url: z.string().min(1), reason: z.string().min(1) }).strict(),
    z.object({ prefix: z.string().min(1), reason: z.string().min(1) }).strict(),
  ]);
  const config = z.object({ [ACCEPTED_KEY[kind]]: z.array(item).default([]) }).parse(args.getConfig()) as Record<
    string,
    AcceptedItem[]
  >;
  const entries = (config[ACCEPTED_KEY[kind]] ?? []).map((entry, index) => {
    if ('url' in entry) return entry;
    // The inventory's prefix rule: the same origin, then the path (not the text: a prefix
    // https://cdn.example.com does not accept https://cdn.example.com.evil.net/x.js).
    const prefix = prefixAddressOf(entry.prefix);
    if (prefix === undefined)
      throw new Error(
        `${ACCEPTED_KEY[kind]}[${index}].prefix: ${JSON.stringify(entry.prefix)} is not an absolute URL with a host; write it as https://cdn.example.com/js/`,
      );
    if (!prefix.path.endsWith('/'))
      throw new Error(
        `${ACCEPTED_KEY[kind]}[${index}].prefix: ${JSON.stringify(entry.prefix)} does not end in "/": a prefix covers whole path segments (write ${entry.prefix}/, or make it a url entry)`,
      );
    return { prefix, reason: entry.reason };
  });
  return (url) => {
    const address = prefixAddressOf(url);
    return entries.find((entry) =>
      'url' in entry ? url === entry.url : address !== undefined && isUnderPrefix(entry.prefix, address),
    )?.reason;
  };
}
