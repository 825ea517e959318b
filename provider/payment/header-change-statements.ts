import type { HeaderChange, PolicyState } from './header-change-schema';
import type { Phrase } from '../impact/statements';

/**
 * A CSP header of a payment host changed outside the stack (issue 33, item 1) in words, the same
 * for `edgeguard-audit`'s Markdown, HTML and summary and the review's `payment-headers-changed`
 * (`./statements.ts`):
 * what changed, the header before (as the stack declares it) and after (live), and the fix.
 * Values are value spans, which each formatter shows as code.
 */

/** The title of the audit's list of them. */
export const HEADER_CHANGES_TITLE: Phrase = [
  'CSP headers of the payment hosts not as the stack manages them (',
  { stress: 'each fails the audit' },
  ')',
];

/** The header a policy makes its host send, as one value (`Content-Security-Policy: ...`), or `none`. */
function sentPhrase(state: PolicyState | undefined, why: string): Phrase {
  if (state === undefined) return [`none (${why})`];
  if (state.sends === undefined) return ['none (the policy is disabled)'];
  const name =
    state.sends.header === 'content-security-policy'
      ? 'Content-Security-Policy'
      : 'Content-Security-Policy-Report-Only';
  return [{ value: `${name}: ${state.sends.value}` }];
}

/** One change: what, where, before and after, and the fix. */
export function headerChangePhrase(change: HeaderChange): Phrase {
  const policy: Phrase = [
    'policy ',
    { value: change.policyId },
    ...(change.managedBy !== undefined ? [' (CspPolicy ', { name: change.managedBy.name }, ')'] : []),
  ];
  const beforeAfter: Phrase = [
    '; before: ',
    ...sentPhrase(
      change.before,
      change.change === 'unmanaged' ? 'the stack declares no such policy' : 'the state holds no declaration',
    ),
    ', after: ',
    ...sentPhrase(change.after, 'the service no longer has the policy'),
  ];
  const expression: Phrase =
    change.differences.includes('expression') && change.before !== undefined && change.after !== undefined
      ? [', expression ', { value: change.before.expression }, ' now ', { value: change.after.expression }]
      : [];
  switch (change.change) {
    case 'unmanaged':
      return [
        { stress: 'CSP header the stack does not manage' },
        ' on ',
        { value: change.host },
        ': ',
        ...policy,
        ...beforeAfter,
        '. Bring it under the stack (a CspPolicy; edgeguard-import writes it) or remove it.',
      ];
    case 'missing':
      return [
        { stress: 'managed CSP header deleted' },
        ' on ',
        { value: change.host },
        ': ',
        ...policy,
        ...beforeAfter,
        '. Restore it (pulumi up).',
      ];
    case 'changed':
      return [
        { stress: 'CSP header changed outside the stack' },
        ' on ',
        { value: change.host },
        ': ',
        ...policy,
        ` (${change.differences.join(', ')})`,
        ...expression,
        ...beforeAfter,
        '. Restore it (pulumi up), or bring the change into the program.',
      ];
  }
}
