import { compareInventoryCsp, differs, type EnforcingPolicy } from '../../../rules/inventory-csp';
import { parseScriptInventory, type ScriptInventory } from '../../../rules/inventory';

/**
 * The comparison of a script inventory with the CSP policies that enforce it
 * (rules/inventory-csp.ts): by parsed sources and what they allow, not by the text written.
 */

const CARD = 'https://js.pay.example/v3/card.js';
const OWN = 'https://checkout.example.com/static/js/';

function inventoryOf(pages: string[], scripts: Array<Record<string, string>>): ScriptInventory {
  const parsed = parseScriptInventory({ pages, scripts });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

const INVENTORY = inventoryOf(
  ['checkout.example.com/pay', 'checkout.example.com/account', 'shop.example.com/checkout'],
  [
    { url: CARD, justification: 'Card form', hash: 'ab'.repeat(32) },
    { prefix: OWN, justification: 'Our checkout code' },
  ],
);

const policy = (value: string, name = 'enforce', hostname = 'checkout.example.com'): EnforcingPolicy => ({
  name,
  hostname,
  value,
});

test('a policy fed by the cspSources allows exactly the inventory; the host without a policy is listed empty', () => {
  const compared = compareInventoryCsp(INVENTORY, [policy(`script-src ${CARD} ${OWN}; object-src 'none'`)]);
  expect(compared).toEqual([
    {
      host: 'checkout.example.com',
      policies: [{ name: 'enforce', governedBy: 'script-src', missing: [], extra: [] }],
    },
    { host: 'shop.example.com', policies: [] },
  ]);
  expect(differs(compared[0]!.policies[0]!)).toBe(false);
});

test('sources are compared in canonical form: case, order, repeats and the default port do not count', () => {
  const compared = compareInventoryCsp(INVENTORY, [
    policy(`script-src HTTPS://CHECKOUT.example.com:443/static/js/ ${CARD} ${CARD}`),
  ]);
  expect(compared[0]!.policies[0]).toMatchObject({ missing: [], extra: [] });
});

test('a source the inventory authorizes and the policy does not allow is missing; one it allows besides is extra', () => {
  const [checkout] = compareInventoryCsp(INVENTORY, [
    policy(`script-src 'self' 'unsafe-inline' ${CARD} https://cdn.other.example/a.js 'sha256-${'A'.repeat(43)}='`),
  ]);
  expect(checkout!.policies[0]).toEqual({
    name: 'enforce',
    governedBy: 'script-src',
    // 'self' covers the prefix on the checkout's own origin: the browser loads it.
    missing: [],
    extra: [
      "'self'",
      "'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='",
      "'unsafe-inline'",
      'https://cdn.other.example/a.js',
    ],
  });
  const [stripped] = compareInventoryCsp(INVENTORY, [policy(`script-src ${CARD}`)]);
  expect(stripped!.policies[0]).toMatchObject({ missing: [OWN], extra: [] });
});

test('a wider source allows the entry (not missing) but is extra; a narrower one under a prefix is neither', () => {
  const [wide] = compareInventoryCsp(INVENTORY, [policy(`script-src js.pay.example ${OWN}`)]);
  expect(wide!.policies[0]).toMatchObject({ missing: [], extra: ['js.pay.example'] });
  const [narrow] = compareInventoryCsp(INVENTORY, [
    policy(`script-src ${CARD} ${OWN} https://checkout.example.com/static/js/app.js`),
  ]);
  expect(narrow!.policies[0]).toMatchObject({ missing: [], extra: [] });
  // Without a scheme, from the https page the source is the https URL.
  const [schemeless] = compareInventoryCsp(INVENTORY, [
    policy('script-src js.pay.example/v3/card.js checkout.example.com/static/js/'),
  ]);
  expect(schemeless!.policies[0]).toMatchObject({ missing: [], extra: [] });
  // Wildcards, other ports and schemes allow what no entry authorizes.
  const [others] = compareInventoryCsp(INVENTORY, [
    policy(
      `script-src ${CARD} ${OWN} *.pay.example https://js.pay.example:*/v3/card.js https: http://js.pay.example/x.js`,
    ),
  ]);
  expect(others!.policies[0]!.extra).toEqual([
    '*.pay.example',
    'http://js.pay.example/x.js',
    'https:',
    'https://js.pay.example:*/v3/card.js',
  ]);
});

test('default-src governs when there is no script-src; a policy with neither allows every script', () => {
  const [fallback] = compareInventoryCsp(INVENTORY, [policy(`default-src ${CARD}; img-src *`)]);
  expect(fallback!.policies[0]).toEqual({ name: 'enforce', governedBy: 'default-src', missing: [OWN], extra: [] });
  const [none] = compareInventoryCsp(INVENTORY, [policy("object-src 'none'")]);
  expect(none!.policies[0]).toEqual({ name: 'enforce', governedBy: null, missing: [], extra: [] });
  expect(differs(none!.policies[0]!)).toBe(true);
});

test("an inventory without entries is 'none'; a policy of 'none' matches it and one that allows anything does not", () => {
  const empty = inventoryOf(['checkout.example.com'], []);
  const [same] = compareInventoryCsp(empty, [policy("script-src 'none'")]);
  expect(same!.policies[0]).toMatchObject({ missing: [], extra: [] });
  const [more] = compareInventoryCsp(empty, [policy(`script-src ${CARD}`)]);
  expect(more!.policies[0]).toMatchObject({ missing: [], extra: [CARD] });
});

test('each host gets the policies of that host only, each compared on its own', () => {
  const compared = compareInventoryCsp(INVENTORY, [
    policy(`script-src ${CARD} ${OWN}`, 'checkout'),
    policy(`script-src ${CARD}`, 'shop', 'shop.example.com'),
    policy(`script-src ${CARD}`, 'blog', 'blog.example.com'),
  ]);
  expect(compared.map(({ host, policies }) => [host, policies.map((p) => [p.name, p.missing])])).toEqual([
    ['checkout.example.com', [['checkout', []]]],
    ['shop.example.com', [['shop', [OWN]]]],
  ]);
});
