import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEMO } from '../../../emulator/seed/demo';
import { engineStack, failureOf, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

/**
 * examples/csp-policies through the real engine, against a fresh demo emulator. The tests share one
 * stack and run in order: deploy, drift made through the API, a change to the program, bad input,
 * destroy.
 */

const TOKEN = 'e2e-example-csp-token-5b1d0e9a';
const PROJECT = path.join(REPO, 'examples', 'csp-policies');
const POLICIES = `zones/${DEMO.zoneId}/page_security/policies`;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const TYPE = 'pulumi-nodejs:dynamic/edgeguard:CspPolicy';

/** The policies the program declares, as the service stores them. */
const DECLARED = {
  'Storefront: report scripts outside the reviewed list': {
    action: 'log',
    expression: 'http.host eq "www.example.com"',
    value: "script-src 'self' *.googletagmanager.com cdn.jsdelivr.net",
  },
  'Checkout: block every script outside the allow list (PCI DSS 6.4.3)': {
    action: 'allow',
    expression: 'http.host eq "checkout.example.com"',
    value:
      "script-src 'self' https://js.stripe.com/v3/ https://www.google.com/recaptcha/api.js 'sha256-kGUQiECb7HTB3+cdt9SV9OGtiju37vTHScB5TlU3tzo='",
  },
  'Shop: report scripts from anywhere but the asset server and the payment widget': {
    action: 'log',
    expression: 'http.host eq "shop.example.com"',
    value:
      "script-src 'self' https://assets.example.com:8443 js.stripe.com; frame-ancestors 'none'; upgrade-insecure-requests",
  },
};
const STOREFRONT_VALUE = DECLARED['Storefront: report scripts outside the reviewed list'].value;
/** Beyond scripts: frame-ancestors, and upgrade-insecure-requests with no sources. */
const SHOP_VALUE = DECLARED['Shop: report scripts from anywhere but the asset server and the payment widget'].value;

let emu: TestEmulator;
let engine: EngineStack;
let program: string;

async function listPolicies(): Promise<Array<Record<string, string>>> {
  const listed = await emu.api('GET', POLICIES);
  expect(listed.status).toBe(200);
  return listed.body.result;
}

/** Replaces one unique piece of the stack's copy of the program. */
function editProgram(from: string, to: string): void {
  const file = path.join(engine.workDir, 'index.ts');
  const text = fs.readFileSync(file, 'utf8');
  expect(text.split(from)).toHaveLength(2);
  fs.writeFileSync(file, text.replace(from, to));
}

function restoreProgram(): void {
  fs.writeFileSync(path.join(engine.workDir, 'index.ts'), program);
}

beforeAll(async () => {
  emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
  engine = await engineStack({ projectDir: PROJECT, emu, token: TOKEN });
  program = fs.readFileSync(path.join(engine.workDir, 'index.ts'), 'utf8');
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

test('preview shows the creates, up deploys the policies and reads the scripts, a second preview shows no changes', async () => {
  expect(await listPolicies()).toEqual([]);
  const preview = await engine.preview();
  // The stack, page security and three policies.
  expect(preview.changeSummary).toEqual({ create: 5 });

  const up = await engine.up();
  expect(up.summary.result).toBe('succeeded');
  expect(up.summary.resourceChanges).toEqual({ create: 5 });

  // The program creates the policies concurrently, so their order in the list is not fixed.
  const live = (await listPolicies()).sort((a, b) => a.description!.localeCompare(b.description!));
  expect(
    live.map(({ description, action, expression, value, enabled }) => ({
      description,
      action,
      expression,
      value,
      enabled,
    })),
  ).toEqual(
    Object.entries(DECLARED)
      .map(([description, policy]) => ({ description, ...policy, enabled: 'true' }))
      .sort((a, b) => a.description.localeCompare(b.description)),
  );
  const byDescription = new Map(live.map((policy) => [policy.description, policy]));
  const exported = up.outputs.policies!.value;
  expect(exported).toEqual({
    storefront: {
      id: byDescription.get('Storefront: report scripts outside the reviewed list')!.id,
      action: 'log',
      value: STOREFRONT_VALUE,
    },
    checkout: {
      id: byDescription.get('Checkout: block every script outside the allow list (PCI DSS 6.4.3)')!.id,
      action: 'allow',
      value: DECLARED['Checkout: block every script outside the allow list (PCI DSS 6.4.3)'].value,
    },
    shop: {
      id: byDescription.get('Shop: report scripts from anywhere but the asset server and the payment widget')!.id,
      action: 'log',
      value: SHOP_VALUE,
    },
  });
  expect((await emu.api('GET', `zones/${DEMO.zoneId}/page_security`)).body.result.enabled).toBe(true);

  // The demo world's scripts below js_integrity_score 10 (emulator/seed/demo.ts).
  expect([...up.outputs.maliciousScripts!.value].sort()).toEqual([
    'https://analytics-cdn.example.info/collect.min.js (js_integrity_score 7)',
    'https://cdn-jquery-min.example.org/jquery-3.7.1.min.js (js_integrity_score 4)',
    'https://fonts-loader.example.biz/loader.js (js_integrity_score 9)',
  ]);
  // Active scripts only (infrequent ones are left out of a plain list); score 10 is not malicious.
  expect(up.outputs.activeScriptsByHost!.value).toEqual({
    'www.example.com': { scripts: 3, malicious: [] },
    'shop.example.com': { scripts: 5, malicious: ['https://cdn-jquery-min.example.org/jquery-3.7.1.min.js'] },
    'checkout.example.com': { scripts: 4, malicious: ['https://analytics-cdn.example.info/collect.min.js'] },
    'blog.example.com': { scripts: 4, malicious: ['https://fonts-loader.example.biz/loader.js'] },
  });

  const again = await engine.preview({ expectNoChanges: true });
  expect(again.changeSummary).toEqual({ same: 5 });
  expect(engine.stateText()).toContain(byDescription.get('Storefront: report scripts outside the reviewed list')!.id);
  expect(engine.stateText()).not.toContain(TOKEN);
}, 180_000);

test('a value changed through the API shows at refresh, and the next up puts the declared value back', async () => {
  const [storefront] = (await listPolicies()).filter((policy) => policy.value === STOREFRONT_VALUE);
  expect(storefront).toBeDefined();
  const { id, description, action, expression, enabled } = storefront!;
  const changed = await emu.api('PUT', `${POLICIES}/${id}`, {
    body: { description, action, expression, enabled, value: "script-src 'self' evil.example.net" },
  });
  expect(changed.status).toBe(200);

  const refresh = await engine.refresh();
  expect(refresh.summary.resourceChanges).toEqual({ update: 1, same: 4 });
  const mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ update: 1, same: 4 });

  expect((await emu.api('GET', `${POLICIES}/${id}`)).body.result.value).toBe(STOREFRONT_VALUE);
  const writes = (await emu.requests(mark)).filter((entry) => WRITES.has(entry.method));
  expect(writes.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
    `PUT /client/v4/${POLICIES}/${id} 200`,
  ]);
}, 180_000);

test('a source added to one policy in the program is a change of its value and of nothing else', async () => {
  editProgram(`"${STOREFRONT_VALUE}"`, `"${STOREFRONT_VALUE} static.hotjar.com"`);
  try {
    const preview = await engine.preview({ diff: true });
    expect(preview.changeSummary).toEqual({ update: 1, same: 4 });
    const lines = preview.stdout.split('\n');
    const start = lines.findIndex((line) => line.includes(`~ ${TYPE}: (update)`));
    expect(start).toBeGreaterThanOrEqual(0);
    // The resource's block runs until the next resource or the summary (a line indented less deeply).
    const indent = lines[start]!.search(/\S/);
    const end = lines.findIndex((line, index) => index > start && line.trim() !== '' && line.search(/\S/) <= indent);
    const block = lines.slice(start + 1, end === -1 ? undefined : end);
    expect(block.join('\n')).toContain('storefront-report');
    // Every property of the resource is listed; only `value` carries a change marker.
    const properties = block
      .filter((line) => !/^\s*\[(id|urn)=/.test(line))
      .map((line) => line.trim().replace(/\s+:/, ':'));
    expect(properties).toEqual([
      'action: "log"',
      'description: "Storefront: report scripts outside the reviewed list"',
      'enabled: true',
      'expression: "http.host eq \\"www.example.com\\""',
      `~ value: "${STOREFRONT_VALUE}" => "${STOREFRONT_VALUE} static.hotjar.com"`,
      `zoneId: "${DEMO.zoneId}"`,
    ]);
  } finally {
    restoreProgram();
  }
}, 180_000);

test('an invalid CSP source fails the preview naming value and the source, and writes nothing', async () => {
  editProgram(' cdn.jsdelivr.net"', ' https//cdn.example.com"');
  const mark = emu.mark();
  try {
    const failure = await failureOf(engine.preview());
    expect(failure).toBeInstanceOf(Error);
    const message = failure.message;
    expect(message).toContain('storefront-report');
    expect(message).toMatch(
      /value.*invalid source "https\/\/cdn\.example\.com" at position \d+: a scheme must be followed by ":\/\/" \(write https:\/\/cdn\.example\.com\)/,
    );
  } finally {
    restoreProgram();
  }
  const requests = await emu.requests(mark);
  // The program's read helpers still ran (GETs), so the log did record this preview.
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((entry) => WRITES.has(entry.method))).toEqual([]);
}, 180_000);

test('a nonce, which the service does not take, fails the preview naming it and saying what to write instead', async () => {
  const withNonce = SHOP_VALUE.replace(' js.stripe.com;', " js.stripe.com 'nonce-r4nd0mN0nce';");
  editProgram(`"${SHOP_VALUE}"`, `"${withNonce}"`);
  const mark = emu.mark();
  try {
    const failure = await failureOf(engine.preview());
    expect(failure).toBeInstanceOf(Error);
    expect(failure.message).toContain('shop-report');
    expect(failure.message).toContain(
      `invalid source "'nonce-r4nd0mN0nce'" at position ${withNonce.indexOf("'nonce")}: the service does not support nonces; use a hash`,
    );
  } finally {
    restoreProgram();
  }
  const requests = await emu.requests(mark);
  expect(requests.filter((entry) => WRITES.has(entry.method))).toEqual([]);
}, 180_000);

test('destroy removes the policies and turns page security back off; no output or state holds the token', async () => {
  const destroy = await engine.destroy();
  expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
  expect(await listPolicies()).toEqual([]);
  expect((await emu.api('GET', `zones/${DEMO.zoneId}/page_security`)).body.result.enabled).toBe(false);

  expect(engine.output.join('\n')).not.toContain(TOKEN);
  expect(engine.stateText()).not.toContain(TOKEN);
}, 180_000);
