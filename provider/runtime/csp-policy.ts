import './compile-cache';
import { z } from 'zod';
import { normalizeCspValue, parseCspValue } from '../../rules/csp';
import { parsePolicyExpression } from '../../rules/expression';
import { policyDescriptionField, ruleField } from '../../rules/zod';
import {
  createPolicy,
  deletePolicy,
  getPolicy,
  POLICY_ACTIONS,
  updatePolicy,
  type PageSecurityPolicy,
  type PageSecurityPolicyCreateParams,
} from '../client/page-security';
import { adopt, adoptIdField } from './adopt';
import { zoneIdSchema } from './check';
import { ownerOf, type Runtime, type RuntimeContext } from './contract';
import { changedInputs, liveInputsOf, wireBody, type Wire } from './wire';

/**
 * Runtime of `CspPolicy`: one content security policy of a zone (spec 2.6). The id is the
 * policy's id. `expression` and `value` are checked with the parsers the service shares
 * (`rules/`), and compared by meaning: the hostname of the expression, the normalized value.
 * With `adoptId`, create takes over that policy of the zone instead of making one (`adopt.ts`).
 */

/** The inputs, as `check` accepts them. */
export const inputsSchema = z.object({
  zoneId: zoneIdSchema.meta({
    description: 'The zone the policy belongs to: its 32-character hexadecimal id.',
    // Moving a policy to another zone is a new policy there; both can exist at once.
    replaces: true,
  }),
  description: policyDescriptionField().meta({
    description: 'What the policy is for; may be empty, at most 1024 characters.',
  }),
  action: z
    .enum(POLICY_ACTIONS, {
      error: (issue) =>
        `${issue.input === undefined ? 'is required' : `got ${JSON.stringify(issue.input)}; it must be`}: "log" (report the scripts the value does not allow) or "allow" (block them)`,
    })
    .meta({
      description: '`log` reports the scripts `value` does not allow without blocking them; `allow` blocks them.',
    }),
  expression: ruleField(
    parsePolicyExpression,
    'the requests the policy covers, as in http.host eq "shop.example.com"',
  ).meta({
    description: `The requests the policy covers: \`http.host eq "shop.example.com"\` (quotes optional); writing
      the same hostname differently is no change.`,
    output: 'The expression as the service stores it.',
  }),
  value: ruleField(parseCspValue, "the CSP directive, as in script-src 'self' cdn.example.com").meta({
    description: `The CSP directive, such as \`script-src 'self' cdn.example.com https://js.example.net/app.js\`;
      reordering sources or changing whitespace is no change.`,
    output: 'The directive as the service stores it.',
  }),
  enabled: z
    .boolean({ error: (issue) => `must be true or false (got ${JSON.stringify(issue.input)})` })
    .default(true)
    .meta({ description: 'Whether the policy is in force.' }),
  adoptId: adoptIdField('CSP policy').meta({
    description: `The id of an existing policy of the zone to adopt: create then takes it over instead of making
      one, with one PUT if a declared property differs (none if it is as declared), and \`pulumi up\` prints that
      it was adopted. A policy of another zone, or none, fails the create and writes nothing.`,
  }),
});

/** The checked inputs. */
export type CspPolicyInputs = z.output<typeof inputsSchema>;

/** The outputs that are not inputs. */
const outputsSchema = z.object({
  policyId: z.string().meta({ description: 'The id the service gave the policy (also the resource id).' }),
});

/** The outputs kept in the state: the policy as read back, and its id. */
export type CspPolicyOutputs = Omit<CspPolicyInputs, 'adoptId'> & z.output<typeof outputsSchema>;

/**
 * How a policy travels (spec 2.6): its zone is its path, every other input but `adoptId` is a field
 * of the record under its own name, and `enabled` travels as the string `"true"` or `"false"`.
 */
const WIRE: Wire<CspPolicyInputs> = {
  addresses: ['zoneId'],
  forms: { enabled: { toWire: (enabled) => (enabled ? 'true' : 'false'), fromWire: (value) => value === 'true' } },
};

/** The live policy as inputs, so that a change made outside the stack shows as drift (and `edgeguard-import` declares it). */
export function liveInputs(zoneId: string, policy: PageSecurityPolicy): Omit<CspPolicyInputs, 'adoptId'> {
  return liveInputsOf(runtime, WIRE, policy, { zoneId });
}

function outputs(zoneId: string, policy: PageSecurityPolicy): CspPolicyOutputs {
  return { policyId: policy.id, ...liveInputs(zoneId, policy) };
}

function body(inputs: CspPolicyInputs): PageSecurityPolicyCreateParams {
  return wireBody(runtime, WIRE, inputs) as PageSecurityPolicyCreateParams;
}

/**
 * Texts equal in meaning under `canonical`; a text it cannot read (a preview unknown, or a value
 * the service accepted that our parser would not) is compared as written.
 */
function sameBy(canonical: (text: string) => string | undefined, left: unknown, right: unknown): boolean {
  if (typeof left !== 'string' || typeof right !== 'string') return left === right;
  const a = canonical(left);
  const b = canonical(right);
  return a !== undefined && b !== undefined ? a === b : left === right;
}

function expressionHost(text: string): string | undefined {
  const parsed = parsePolicyExpression(text);
  return parsed.ok ? parsed.value.hostname : undefined;
}

function canonicalValue(text: string): string | undefined {
  return parseCspValue(text).ok ? normalizeCspValue(text) : undefined;
}

/**
 * Which properties differ in meaning between the old outputs and the new inputs: source order,
 * repeated sources, whitespace and case in `value` are no change; `expression` compares by its
 * hostname (the runtime's `same`). `adoptId` is not compared: it matters only at create.
 */
export function changedProperties(olds: Partial<CspPolicyOutputs>, news: CspPolicyInputs): string[] {
  return changedInputs(runtime, olds, news);
}

/** Takes over the zone's policy `adoptId`, with one PUT if any declared property differs. */
function adoptPolicy(ctx: RuntimeContext, inputs: CspPolicyInputs, adoptId: string): Promise<PageSecurityPolicy> {
  const client = ctx.client;
  return adopt(ctx, {
    resource: 'CspPolicy',
    noun: 'CSP policy',
    owner: { kind: 'zone', id: inputs.zoneId },
    id: adoptId,
    read: () => getPolicy(client, inputs.zoneId, adoptId),
    describe: (policy) => (policy.description !== '' ? JSON.stringify(policy.description) : policy.expression),
    conflicts: () => [],
    differences: (policy) => changedProperties(outputs(inputs.zoneId, policy), inputs),
    write: () => updatePolicy(client, inputs.zoneId, adoptId, body(inputs)),
  });
}

/** The runtime of `CspPolicy`. */
export const runtime: Runtime<CspPolicyInputs, CspPolicyOutputs> = {
  resource: 'CspPolicy',
  description: 'A content security policy of a zone (spec 2.6). The id is the policy id.',
  inputs: inputsSchema,
  outputs: outputsSchema,
  same: {
    expression: (old, news) => sameBy(expressionHost, old, news),
    value: (old, news) => sameBy(canonicalValue, old, news),
  },

  async create(ctx, inputs) {
    const policy =
      inputs.adoptId === undefined
        ? await createPolicy(ctx.client, inputs.zoneId, body(inputs))
        : await adoptPolicy(ctx, inputs, inputs.adoptId);
    return { id: policy.id, outs: outputs(inputs.zoneId, policy) };
  },

  async read(ctx, id, props) {
    const zoneId = ownerOf('CspPolicy', id, props, 'zoneId');
    const policy = await getPolicy(ctx.client, zoneId, id);
    return { props: outputs(zoneId, policy), inputs: liveInputs(zoneId, policy) };
  },

  async update(ctx, id, olds, news) {
    return outputs(olds.zoneId, await updatePolicy(ctx.client, olds.zoneId, id, body(news)));
  },

  async delete(ctx, id, props) {
    await deletePolicy(ctx.client, props.zoneId, id);
  },
};
