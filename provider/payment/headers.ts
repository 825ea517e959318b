import { normalizeCspValue, parseCspValue } from '../../rules/csp';
import { parsePolicyExpression } from '../../rules/expression';
import type { HeaderChange, PolicyDifference, PolicyHeader, PolicyState } from './header-change-schema';
import { isKnownAction, type PageSecurityPolicy } from '../client/page-security';
import type { DeclaredPolicy, ManagedPolicy } from '../stack/export';

/**
 * The CSP headers of the payment pages' hosts against what the stack manages (PCI DSS 4.0
 * requirement 11.6.1, issue 33, item 1): a change to the CSP made outside the stack can be a sign
 * of tampering. Pure: the payment review, `edgeguard-audit` and `edgeguard-probe` give it the
 * live policies (or the headers a browser received) and the stack's `CspPolicy` resources.
 *
 * A policy is a header on its host: `allow` sends `Content-Security-Policy`, `log`
 * `Content-Security-Policy-Report-Only`, and a disabled one sends nothing.
 */

/** The header a policy makes its host send, or `undefined` when it is disabled. */
export function headerOf(policy: { action: string; value: string; enabled: boolean }): PolicyHeader | undefined {
  // An action EdgeGuard does not know (the vendor's `add_reporting_directives`) sends no header it can name.
  if (!policy.enabled || !isKnownAction(policy.action)) return undefined;
  return {
    header: policy.action === 'allow' ? 'content-security-policy' : 'content-security-policy-report-only',
    value: policy.value,
  };
}

/** The host a policy expression covers, lowercase, or `undefined` when it cannot be read. */
export function expressionHost(expression: string): string | undefined {
  const parsed = parsePolicyExpression(expression);
  return parsed.ok ? parsed.value.hostname : undefined;
}

/** A CSP value as compared: normalized when it parses (source order and case are no change), else as written. */
export function comparableCspValue(value: string): string {
  return parseCspValue(value).ok ? normalizeCspValue(value) : value.trim();
}

function stateOf(policy: Omit<DeclaredPolicy, 'action'> & { action: string }): PolicyState {
  const sends = headerOf(policy);
  return {
    action: policy.action,
    expression: policy.expression,
    value: policy.value,
    enabled: policy.enabled,
    ...(sends !== undefined ? { sends } : {}),
  };
}

/**
 * What differs in meaning between a declaration and the live policy, as the resource's diff
 * compares them: the expression by its host, the value normalized. Written here rather than
 * taken from the resource's runtime, which would load the Pulumi SDK into the policy pack.
 */
function differencesOf(declared: DeclaredPolicy, live: PolicyState): PolicyDifference[] {
  const host = (expression: string) => expressionHost(expression) ?? expression;
  return [
    ...(declared.action !== live.action ? (['action'] as const) : []),
    ...(host(declared.expression) !== host(live.expression) ? (['expression'] as const) : []),
    ...(comparableCspValue(declared.value) !== comparableCspValue(live.value) ? (['value'] as const) : []),
    ...(declared.enabled !== live.enabled ? (['enabled'] as const) : []),
  ];
}

function liveState(policy: PageSecurityPolicy): PolicyState {
  return stateOf({ ...policy, enabled: policy.enabled === 'true' });
}

/**
 * The changes of the CSP headers on `hosts` (the payment pages' hosts of one zone): `live`, the
 * zone's policies as the service lists them, against `managed`, the stack's `CspPolicy` resources
 * of that zone. A managed policy counts when it is declared or live on a payment host; one whose
 * declaration the state does not hold is compared by nothing but its presence. Sorted by host,
 * then policy id.
 */
export function headerChanges(
  live: readonly PageSecurityPolicy[],
  managed: readonly ManagedPolicy[],
  hosts: ReadonlySet<string>,
): HeaderChange[] {
  const liveById = new Map(live.map((policy) => [policy.id, policy]));
  const managedIds = new Set(managed.map((policy) => policy.policyId));
  const changes: HeaderChange[] = [];
  for (const policy of managed) {
    const current = liveById.get(policy.policyId);
    const declaredHost = policy.declared && expressionHost(policy.declared.expression);
    const liveHost = current && expressionHost(current.expression);
    const host = [declaredHost, liveHost].find((candidate) => candidate !== undefined && hosts.has(candidate));
    if (host === undefined) continue;
    const managedBy = { name: policy.name, urn: policy.urn };
    const before = policy.declared && stateOf(policy.declared);
    if (current === undefined) {
      changes.push({
        change: 'missing',
        host,
        policyId: policy.policyId,
        managedBy,
        differences: [],
        ...(before ? { before } : {}),
      });
      continue;
    }
    const after = liveState(current);
    if (policy.declared === undefined) continue;
    const differences = differencesOf(policy.declared, after);
    if (differences.length > 0)
      changes.push({
        change: 'changed',
        host,
        policyId: policy.policyId,
        managedBy,
        differences,
        before: before!,
        after,
      });
  }
  for (const policy of live) {
    if (managedIds.has(policy.id) || policy.enabled !== 'true') continue;
    const host = expressionHost(policy.expression);
    if (host === undefined || !hosts.has(host)) continue;
    changes.push({
      change: 'unmanaged',
      host,
      policyId: policy.id,
      differences: [],
      after: liveState(policy),
    });
  }
  return changes.sort((a, b) =>
    a.host === b.host ? (a.policyId < b.policyId ? -1 : a.policyId > b.policyId ? 1 : 0) : a.host < b.host ? -1 : 1,
  );
}

/**
 * The CSP headers the stack means `host` to send: each enabled `CspPolicy` of the zone declared on
 * the host, by header, values as declared.
 */
export function declaredCspHeaders(
  managed: readonly ManagedPolicy[],
  host: string,
): Array<PolicyHeader & { managedBy: { name: string; urn: string } }> {
  return managed.flatMap((policy) => {
    const sends =
      policy.declared && expressionHost(policy.declared.expression) === host ? headerOf(policy.declared) : undefined;
    return sends ? [{ ...sends, managedBy: { name: policy.name, urn: policy.urn } }] : [];
  });
}
