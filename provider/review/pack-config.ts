import type { PolicyConfigSchema, StackValidationArgs } from '@pulumi/policy';
import type * as zod from 'zod';
import type * as inventoryRules from '../../rules/inventory';
import type { Acceptance } from '../impact/evaluate';
import type { Kind } from '../impact/statements';

/**
 * The policy pack's own configuration: each CSP policy's, the scripts or connections a team
 * accepts ({@link acceptedConfigSchema}), as `@pulumi/policy` gives it to a policy.
 *
 * The service's settings are not in it: the pack reads them from its environment, as every other
 * component resolves them (`../settings.ts`), and `edgeguard-review` puts the stack's `edgeguard:*`
 * configuration there (`packSettingsEnv` of `./review-stack.ts`). The engine gives a pack the
 * stack's configuration only in its `ConfigureStack` call, of which `@pulumi/policy` 1.21 keeps the
 * tags alone, and an executable pack (policy-pack/) gets no `PULUMI_CONFIG` variable either; the
 * pack does without it rather than reach into `@pulumi/policy`'s gRPC server (issue 43).
 */

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
