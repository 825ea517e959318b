import { renderMarkdown } from '../../../provider/format/review-markdown';
import { impactText } from '../../../provider/format/review-text';
import { ZoneImpactEvaluator, type PolicyText, type ZonePolicies } from '../../../provider/impact/evaluate';
import type { PolicyReview } from '../../../provider/impact/model';
import { NOT_READ_UNCHANGED, REVIEW_SCOPE_ENV, reviewScopeFrom, zoneUnchanged } from '../../../provider/review/plan';
import { reviewReport } from '../../helpers/review-report';

/**
 * The review's scope (issue 42, item 6): which zones the scope `change` leaves unread (those whose
 * CSP headers the change leaves as they are live, and no other), how the scope is set, and what a
 * policy whose host was not read says in the text and the Markdown: that it was not read, and no
 * count or source that would claim otherwise.
 */

const HOST = 'checkout.example.com';
const [A, B] = ['a'.repeat(32), 'b'.repeat(32)];
const text = (value: string, extra: Partial<PolicyText> = {}): PolicyText => ({
  action: 'allow',
  enabled: true,
  expression: `http.host eq "${HOST}"`,
  value,
  ...extra,
});
const VALUE = "script-src 'self' js.pay.example";

/** The zone with live policies A (and B when given), the stack proposing `proposed` for A. */
function zone(proposed: PolicyText, options: { b?: PolicyText; managed?: string[] | 'unknown' } = {}): ZonePolicies {
  const live = [{ id: A, policy: text(VALUE) }, ...(options.b !== undefined ? [{ id: B, policy: options.b }] : [])];
  return {
    proposed: [{ name: 'checkout', policy: proposed, baseline: { kind: 'live', id: A, policy: text(VALUE) } }],
    live,
    managed: options.managed === 'unknown' ? { unknown: 'no state' } : new Set(options.managed ?? [A]),
  };
}

test('a zone is unchanged only when every managed live policy is replaced by one of the same text', () => {
  expect(zoneUnchanged(zone(text(VALUE)))).toBe(true);
  // A live policy the stack does not manage stays beside: still unchanged.
  expect(zoneUnchanged(zone(text(VALUE), { b: text("script-src 'self'", { action: 'log' }) }))).toBe(true);
  // Each of the four fields of the text is a change.
  expect(zoneUnchanged(zone(text(`${VALUE} cdn.example.net`)))).toBe(false);
  expect(zoneUnchanged(zone(text(VALUE, { action: 'log' })))).toBe(false);
  expect(zoneUnchanged(zone(text(VALUE, { enabled: false })))).toBe(false);
  expect(zoneUnchanged(zone(text(VALUE, { expression: 'http.host eq "shop.example.com"' })))).toBe(false);
  // A managed live policy the change deletes; managed policies not known.
  expect(zoneUnchanged(zone(text(VALUE), { b: text("script-src 'self'"), managed: [A, B] }))).toBe(false);
  expect(zoneUnchanged(zone(text(VALUE), { managed: 'unknown' }))).toBe(false);
  // A policy created, recreated or of an unknown baseline.
  for (const baseline of [{ kind: 'none' as const }, { kind: 'unknown' as const, reason: 'no state' }]) {
    const created = zone(text(VALUE));
    expect(zoneUnchanged({ ...created, proposed: [{ ...created.proposed[0]!, baseline }] })).toBe(false);
  }
});

test(`${REVIEW_SCOPE_ENV} sets the scope: full when unset or empty; another value refused naming the variable`, () => {
  expect(reviewScopeFrom({})).toBe('full');
  expect(reviewScopeFrom({ [REVIEW_SCOPE_ENV]: ' ' })).toBe('full');
  expect(reviewScopeFrom({ [REVIEW_SCOPE_ENV]: 'change' })).toBe('change');
  expect(reviewScopeFrom({ [REVIEW_SCOPE_ENV]: ' full ' })).toBe('full');
  expect(() => reviewScopeFrom({ [REVIEW_SCOPE_ENV]: 'nightly' })).toThrow(
    `${REVIEW_SCOPE_ENV} "nightly" must be one of full, change`,
  );
});

test('a policy whose host was not read says so in the text and the Markdown, and claims no count or unused source', () => {
  const evaluator = new ZoneImpactEvaluator(zone(text(VALUE)));
  const [impact] = evaluator.results();
  const review: PolicyReview = {
    ...impact!,
    scripts: { ...impact!.scripts, unusedSources: [] },
    connections: { ...impact!.connections, unusedSources: [] },
    key: 'urn',
    name: 'checkout',
    zoneId: 'z',
    action: 'allow',
    enabled: true,
    value: VALUE,
    notRead: NOT_READ_UNCHANGED,
  };
  const said = impactText(review);
  expect(said).toContain(`Its host's detected scripts and connections were not read: ${NOT_READ_UNCHANGED}.`);
  expect(said).not.toMatch(/detected on|Blocks no|candidates for removal/);
  const markdown = renderMarkdown(reviewReport({ exitCode: 0, policies: [review] }));
  expect(markdown).toContain("Its host's detected scripts and connections were not read");
  // Under its own heading, not in the table of policies "unchanged and without violation".
  expect(markdown).toContain('#### `checkout`');
  expect(markdown).not.toContain('unchanged and without violation');
});
