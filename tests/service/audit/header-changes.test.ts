import { clientFrom } from '../../../provider/client/shared';
import { auditMarkdown } from '../../../provider/format/audit-markdown';
import { summaryText } from '../../../provider/format/audit-wording';
import { exitStatusOf, gatherEvidence } from '../../../provider/payment/evidence';
import { auditEvidenceSchema, type AuditEvidence } from '../../../provider/payment/evidence-schema';
import type { ManagedPolicy } from '../../../provider/stack/inventories';
import { parseScriptInventory } from '../../../rules/inventory';
import { startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';
import { changePolicy, CHECKOUT_CARD, CHECKOUT_HOST, DECLARED, managedPolicy } from '../../helpers/managed-policy';

/**
 * `edgeguard-audit` watches the CSP headers of the payment hosts (issue 33, item 1) against the
 * emulator: the stack manages one enforcing policy on the checkout's host, as declared; then, as
 * someone would in the dashboard, a policy is added on the host, the managed one disabled,
 * switched to report-only, its value changed, or deleted. Each fails the audit (exit 1), naming
 * the header before (the stack's) and after (live); a policy on another host, or a disabled
 * policy nobody manages, does not.
 */

const [HOST, CARD, URN] = [
  CHECKOUT_HOST,
  CHECKOUT_CARD,
  'urn:pulumi:prod::shop::edgeguard:index:CspPolicy::checkout-enforce',
];

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

/** A zone of its own whose checkout host has the stack's enforcing policy, as declared. */
async function checkout(): Promise<{ zone: string; policyId: string; managed: ManagedPolicy }> {
  const zone = await emu.zoneWithScripts([]);
  return { zone, ...(await managedPolicy(emu, zone)) };
}

async function audit(zone: string, managed: ManagedPolicy): Promise<AuditEvidence> {
  const parsed = parseScriptInventory({
    pages: [`${HOST}/checkout`],
    scripts: [{ url: CARD, justification: 'Card form' }],
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const evidence = await gatherEvidence(clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN } }), {
    project: 'shop',
    stack: 'prod',
    toolVersion: '0.1.0',
    inventories: [{ name: 'checkout-scripts', urn: 'urn:inventory', zoneId: zone, inventory: parsed.value }],
    policies: [managed],
  });
  return auditEvidenceSchema.parse(JSON.parse(JSON.stringify(evidence)));
}

const put = (zone: string, policyId: string, change: Parameters<typeof changePolicy>[3]) =>
  changePolicy(emu, zone, policyId, change);

test('as the stack declares it, with a disabled policy nobody manages and one on another host: it passes', async () => {
  const { zone, managed } = await checkout();
  for (const body of [
    { ...DECLARED, description: 'Old experiment', enabled: false },
    { ...DECLARED, description: 'Blog', expression: 'http.host eq "blog.example.com"' },
  ])
    expect((await emu.api('POST', `zones/${zone}/page_security/policies`, { body })).status).toBe(200);
  const evidence = await audit(zone, managed);
  expect(evidence.inventories[0]!.headerChanges).toEqual([]);
  expect({ passed: evidence.passed, status: exitStatusOf(evidence) }).toEqual({ passed: true, status: 0 });
});

test('another team’s policy added on the payment host: fails, the header after named, none before', async () => {
  const { zone, managed } = await checkout();
  const added = await emu.api('POST', `zones/${zone}/page_security/policies`, {
    body: {
      description: 'Marketing',
      action: 'log',
      expression: `http.host eq "${HOST}"`,
      value: "script-src 'self' https://tags.example",
      enabled: true,
    },
  });
  const evidence = await audit(zone, managed);
  expect(evidence.inventories[0]!.headerChanges).toEqual([
    {
      change: 'unmanaged',
      host: HOST,
      policyId: added.body.result.id,
      differences: [],
      after: {
        action: 'log',
        expression: `http.host eq "${HOST}"`,
        value: "script-src 'self' https://tags.example",
        enabled: true,
        sends: { header: 'content-security-policy-report-only', value: "script-src 'self' https://tags.example" },
      },
    },
  ]);
  expect({ passed: evidence.passed, status: exitStatusOf(evidence) }).toEqual({ passed: false, status: 1 });
  const summary = summaryText(evidence);
  expect(summary).toContain('1 CSP header changed outside the stack');
  expect(summary).toContain(
    `CSP header the stack does not manage on ${HOST}: policy ${added.body.result.id}; before: none (the stack declares no such policy), after: Content-Security-Policy-Report-Only: script-src 'self' https://tags.example. Bring it under the stack`,
  );
  expect(auditMarkdown(evidence)).toContain('### CSP headers of the payment hosts not as the stack manages them');
});

test.each([
  ['disabled', { enabled: 'false' }, ['enabled'], 'none (the policy is disabled)'],
  ['switched to report-only', { action: 'log' }, ['action'], `Content-Security-Policy-Report-Only: script-src ${CARD}`],
  [
    'its value changed',
    { value: `script-src ${CARD} https://collect.example` },
    ['value'],
    `Content-Security-Policy: script-src ${CARD} https://collect.example`,
  ],
] as const)(
  'the managed policy %s outside the stack: fails, naming the header before and after',
  async (_, change, differences, after) => {
    const { zone, policyId, managed } = await checkout();
    await put(zone, policyId, change);
    const evidence = await audit(zone, managed);
    expect(evidence.inventories[0]!.headerChanges).toMatchObject([
      { change: 'changed', host: HOST, policyId, managedBy: { name: 'checkout-enforce', urn: URN }, differences },
    ]);
    expect(exitStatusOf(evidence)).toBe(1);
    expect(summaryText(evidence)).toContain(
      `CSP header changed outside the stack on ${HOST}: policy ${policyId} (CspPolicy "checkout-enforce") (${differences.join(', ')}); before: Content-Security-Policy: script-src ${CARD}, after: ${after}. Restore it (pulumi up)`,
    );
  },
);

test('the same value written differently (spaces, the host’s case) is no change', async () => {
  const { zone, policyId, managed } = await checkout();
  await put(zone, policyId, { value: 'script-src   https://JS.PAY.EXAMPLE/v3/card.js' });
  const evidence = await audit(zone, managed);
  expect(evidence.inventories[0]!.headerChanges).toEqual([]);
});

test('the managed policy deleted: fails, the header before named, none after', async () => {
  const { zone, policyId, managed } = await checkout();
  expect((await emu.api('DELETE', `zones/${zone}/page_security/policies/${policyId}`)).status).toBe(200);
  const evidence = await audit(zone, managed);
  expect(evidence.inventories[0]!.headerChanges).toMatchObject([
    { change: 'missing', policyId, before: { enabled: true } },
  ]);
  expect(exitStatusOf(evidence)).toBe(1);
  expect(summaryText(evidence)).toContain(
    `managed CSP header deleted on ${HOST}: policy ${policyId} (CspPolicy "checkout-enforce"); before: Content-Security-Policy: script-src ${CARD}, after: none (the service no longer has the policy). Restore it (pulumi up).`,
  );
});
