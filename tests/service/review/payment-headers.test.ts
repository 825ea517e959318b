import { clientFrom } from '../../../provider/client/shared';
import { findingText } from '../../../provider/format/review-text';
import { headersChangedFinding, inventoryStatement } from '../../../provider/payment/statements';
import { reviewService, type ReviewInput } from '../../../provider/review/plan';
import type { ManagedPolicy } from '../../../provider/stack/export';
import { parseScriptInventory } from '../../../rules/inventory';
import { startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';
import { changePolicy, CHECKOUT_CARD, CHECKOUT_HOST, DECLARED, managedPolicy } from '../../helpers/managed-policy';

/**
 * The review's `payment-headers-changed` (issue 33, item 1) against the emulator: the CSP headers
 * of an inventory's payment host compared with the policies the stack managed before the change
 * (its state's declarations). A policy added on the host, the managed one disabled, switched to
 * report-only, its value changed or deleted outside the stack each make the violation, naming the
 * header before and after; as declared, there is none; without the previous state, the report says
 * they are not compared, and no request is made for them.
 */

const [HOST, CARD] = [CHECKOUT_HOST, CHECKOUT_CARD];

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

const client = () => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN } });

/** A zone of its own with the stack's enforcing policy on the payment host, as declared. */
async function zoneWithPolicy(): Promise<{ zone: string; policyId: string; managed: ManagedPolicy }> {
  const zone = await emu.zoneWithScripts([{ url: CARD, page_urls: [`https://${HOST}/pay`] }]);
  return { zone, ...(await managedPolicy(emu, zone)) };
}

function input(zone: string, previousPolicies: ReviewInput['previousPolicies']): ReviewInput {
  const parsed = parseScriptInventory({ pages: [`${HOST}/pay`], scripts: [{ url: CARD, justification: 'Card form' }] });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return {
    policies: [],
    migrations: [],
    notifications: [],
    inventories: [
      { key: 'urn:inventory', name: 'checkout-scripts', zoneId: zone, inventory: parsed.value, previous: 'none' },
    ],
    ...(previousPolicies !== undefined ? { previousPolicies } : {}),
  };
}

/** The violation `payment-headers-changed` reports for the zone, or undefined. */
async function violation(zone: string, managed: ManagedPolicy): Promise<string | undefined> {
  const result = await reviewService(client(), input(zone, [managed]));
  const found = headersChangedFinding(result.inventories[0]!);
  return found && findingText(found);
}

test('as the stack declared them: no violation, one request for the zone’s policies, counted in the bound', async () => {
  const { zone, managed } = await zoneWithPolicy();
  const mark = emu.mark();
  const result = await reviewService(client(), input(zone, [managed]));
  const listed = (await emu.requests(mark)).filter((request) => request.path.endsWith(`/${emu.pageSecurity}/policies`));
  expect(listed).toHaveLength(1);
  expect(result.inventories[0]!.headerChanges).toEqual([]);
  expect(result.requests.made).toBeLessThanOrEqual(result.requests.bound);
  expect(result.requests.plan).toContain("1 (the policies of the inventories' zones)");
  expect(inventoryStatement(result.inventories[0]!).headers).toEqual([
    "Every CSP header of its pages' hosts is as the stack manages it.",
  ]);
});

test('another team’s policy added on the payment host: the violation names it, none before', async () => {
  const { zone, managed } = await zoneWithPolicy();
  const added = await emu.api('POST', `zones/${zone}/${emu.pageSecurity}/policies`, {
    body: { ...DECLARED, description: 'Marketing', action: 'log', value: "script-src 'self' https://tags.example" },
  });
  const message = await violation(zone, managed);
  expect(message).toContain(
    'ScriptInventory "checkout-scripts": 1 CSP header of its pages\' hosts is not as the stack manages it',
  );
  expect(message).toContain(
    `CSP header the stack does not manage on ${HOST}: policy ${added.body.result.id}; before: none (the stack declares no such policy), after: Content-Security-Policy-Report-Only: script-src 'self' https://tags.example.`,
  );
  expect(message).toContain('Bring a policy the stack does not manage under it');
});

test.each([
  ['disabled', { enabled: 'false' }, 'enabled', 'none (the policy is disabled)'],
  ['switched to report-only', { action: 'log' }, 'action', `Content-Security-Policy-Report-Only: script-src ${CARD}`],
  [
    'changed',
    { value: `script-src ${CARD} https://collect.example` },
    'value',
    `Content-Security-Policy: script-src ${CARD} https://collect.example`,
  ],
] as const)(
  'the managed policy %s outside the stack: the violation names the header before and after',
  async (_, change, what, after) => {
    const { zone, policyId, managed } = await zoneWithPolicy();
    await changePolicy(emu, zone, policyId, change);
    expect(await violation(zone, managed)).toContain(
      `CSP header changed outside the stack on ${HOST}: policy ${policyId} (CspPolicy "checkout-enforce") (${what}); before: Content-Security-Policy: script-src ${CARD}, after: ${after}.`,
    );
  },
);

test('the managed policy deleted outside the stack: the violation names the header before, none after', async () => {
  const { zone, policyId, managed } = await zoneWithPolicy();
  await emu.api('DELETE', `zones/${zone}/${emu.pageSecurity}/policies/${policyId}`);
  expect(await violation(zone, managed)).toContain(
    `managed CSP header deleted on ${HOST}: policy ${policyId} (CspPolicy "checkout-enforce"); before: Content-Security-Policy: script-src ${CARD}, after: none (the service no longer has the policy).`,
  );
});

test('without the previous state: not compared, said in the report, no request for it', async () => {
  const { zone } = await zoneWithPolicy();
  const mark = emu.mark();
  const result = await reviewService(client(), input(zone, { unknown: 'the previous state is not known' }));
  expect((await emu.requests(mark)).filter((request) => request.path.endsWith('/policies'))).toEqual([]);
  expect(headersChangedFinding(result.inventories[0]!)).toBeUndefined();
  expect(inventoryStatement(result.inventories[0]!).headers).toEqual([
    "The CSP headers of its pages' hosts are not compared with the stack's: ",
    'the previous state is not known',
    '.',
  ]);
});
