import { z } from 'zod';
import { CSP_HEADERS } from '../../rules/security-headers';

/**
 * A CSP header of a payment host that is not as the stack manages it (issue 33, item 1), as
 * `edgeguard-audit`'s evidence holds it (`headerChanges`) and the payment review says it: one zod
 * schema, documented by each field's `description`.
 */

/** What a policy makes its host send. */
export const policyHeaderSchema = z
  .object({
    header: z.enum(CSP_HEADERS).meta({
      description: '`content-security-policy` (action `allow`) or `content-security-policy-report-only` (`log`).',
    }),
    value: z.string(),
  })
  .strict();
export type PolicyHeader = z.output<typeof policyHeaderSchema>;

/** One side of a comparison: the policy as the stack declares it, or as the service has it. */
export const policyStateSchema = z
  .object({
    action: z.string().meta({
      description:
        '`allow` or `log`; a live policy may hold an action EdgeGuard does not know, kept as the service gave it (it sends no header EdgeGuard can name).',
    }),
    expression: z.string(),
    value: z.string(),
    enabled: z.boolean(),
    sends: policyHeaderSchema
      .optional()
      .meta({ description: 'The header the host sends; absent when the policy is disabled.' }),
  })
  .strict();
export type PolicyState = z.output<typeof policyStateSchema>;

/** What differs between a managed policy's declaration and the live policy. */
export const POLICY_DIFFERENCES = ['action', 'expression', 'value', 'enabled'] as const;
export type PolicyDifference = (typeof POLICY_DIFFERENCES)[number];

export const headerChangeSchema = z
  .object({
    change: z.enum(['unmanaged', 'changed', 'missing']).meta({
      description:
        '`unmanaged`: a live, enabled policy on the host that no CspPolicy of the stack manages; `changed`: a managed policy whose live action, expression, value or enabled flag differs from the stack; `missing`: a managed policy the service no longer has.',
    }),
    host: z.string().meta({ description: 'The payment host whose header it is.' }),
    policyId: z.string(),
    managedBy: z
      .object({ name: z.string(), urn: z.string() })
      .strict()
      .optional()
      .meta({ description: "The stack's CspPolicy resource that manages it; absent when `unmanaged`." }),
    differences: z
      .array(z.enum(POLICY_DIFFERENCES))
      .meta({ description: 'What differs, when `changed`; otherwise empty.' }),
    before: policyStateSchema
      .optional()
      .meta({ description: 'The policy as the stack declares it; absent when `unmanaged`.' }),
    after: policyStateSchema
      .optional()
      .meta({ description: 'The policy as the service has it; absent when `missing`.' }),
  })
  .strict();
export type HeaderChange = z.output<typeof headerChangeSchema>;
