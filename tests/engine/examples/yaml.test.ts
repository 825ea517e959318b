import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEMO } from '../../../emulator/seed/demo';
import { POLICY_PACK } from '../../../provider/review/review-stack';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { usePluginBuild } from '../../helpers/languages';

/**
 * examples/yaml through the real engine and the YAML language host the set-up builds, with the
 * plugin's single executable, against a demo emulator: up, a change that `preview --diff` shows
 * per property, destroy. Then a YAML program with two explicit providers, each with its own
 * service (an emulator each, accepting only its own token).
 */

const TOKEN = 'e2e-yaml-token-7c1e93b2';
const POLICIES = `zones/${DEMO.zoneId}/page_security/policies`;
const STOREFRONT = 'Storefront: report scripts outside the reviewed list';
const CHECKOUT = 'Checkout: block every script outside the allow list (PCI DSS 6.4.3)';

describe('examples/yaml', () => {
  let emu: TestEmulator;
  let engine: EngineStack;
  let poolIds: string[];

  /** Replaces one unique piece of the stack's copy of the program. */
  function editProgram(from: string, to: string): void {
    const file = path.join(engine.workDir, 'Pulumi.yaml');
    const text = fs.readFileSync(file, 'utf8');
    expect(text.split(from)).toHaveLength(2);
    fs.writeFileSync(file, text.replace(from, to));
  }

  async function policiesByDescription(): Promise<Map<string, Record<string, string>>> {
    const listed = await emu.api('GET', POLICIES);
    expect(listed.status).toBe(200);
    return new Map(listed.body.result.map((policy: Record<string, string>) => [policy.description, policy]));
  }

  beforeAll(async () => {
    emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
    const pools = await emu.api('GET', `accounts/${DEMO.accountId}/load_balancers/pools`);
    poolIds = pools.body.result.slice(0, 3).map((pool: { id: string }) => pool.id);
    engine = await engineStack({ projectDir: path.join(REPO, 'examples', 'yaml'), emu, token: TOKEN });
    usePluginBuild(engine.workDir);
    // The whole configuration in one `pulumi config set-all --path` (the pools' ids are a list),
    // not a command per key.
    await engine.stack.setAllConfig(
      {
        zoneId: { value: DEMO.zoneId },
        accountId: { value: DEMO.accountId },
        ...Object.fromEntries(poolIds.map((id, index) => [`poolIds[${index}]`, { value: id }])),
      },
      true,
    );
  }, 60_000);
  afterAll(async () => {
    await engine?.dispose();
    await emu?.close();
  });

  test('up deploys page security, both policies and the health notification', async () => {
    const up = await engine.up();
    expect(up.summary.result).toBe('succeeded');
    // The stack and the four resources (the default provider is not counted).
    expect(up.summary.resourceChanges).toEqual({ create: 5 });
    expect((await emu.api('GET', `zones/${DEMO.zoneId}/page_security`)).body.result.enabled).toBe(true);
    const policies = await policiesByDescription();
    expect([...policies.keys()].sort()).toEqual([CHECKOUT, STOREFRONT]);
    expect(policies.get(STOREFRONT)).toMatchObject({ action: 'log', expression: 'http.host eq "www.example.com"' });
    expect(policies.get(CHECKOUT)).toMatchObject({ action: 'allow' });
    expect(up.outputs.cspPolicyIds!.value).toEqual({
      storefront: policies.get(STOREFRONT)!.id,
      checkout: policies.get(CHECKOUT)!.id,
    });
    const notification = await emu.api(
      'GET',
      `accounts/${DEMO.accountId}/alerting/v3/policies/${up.outputs.healthNotificationId!.value}`,
    );
    expect(notification.status).toBe(200);
    expect(notification.body.result.name).toBe('Load balancer pool health');
    expect([...notification.body.result.filters.pool_id].sort()).toEqual([...poolIds].sort());
    expect(engine.stateText()).not.toContain(TOKEN);
    // The set-up put the YAML host beside the CLI, where the engine looks for bundled hosts.
    expect(engine.output.join('\n')).toContain('edgeguard:index:PageSecuritySetting');
    expect(engine.output.join('\n')).not.toMatch(/from \$PATH/);
    // The program is valid YAML for the host: no warning about its fields on every run.
    expect(engine.output.join('\n')).not.toMatch(/Warning/);
  }, 180_000);

  test('preview --diff shows a changed action per property and a reordered value as no change; up applies it', async () => {
    editProgram('      action: log\n', '      action: allow\n');
    editProgram(
      "script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js",
      "script-src https://www.google.com/recaptcha/api.js js.stripe.com 'self'",
    );
    const preview = await engine.preview({ diff: true });
    expect(preview.changeSummary).toEqual({ same: 4, update: 1 });
    expect(preview.stdout).toMatch(
      /~ edgeguard:index:CspPolicy: \(update\)[^]*\[urn=[^\]]*storefront-scripts-report\]/,
    );
    expect(preview.stdout).toMatch(/~ action\s*: "log" => "allow"/);
    expect(preview.stdout).not.toContain('checkout-scripts-allowlist');

    const before = emu.mark();
    const up = await engine.up();
    expect(up.summary.resourceChanges).toEqual({ same: 4, update: 1 });
    expect((await emu.writesSince(before)).map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT /client/v4/${POLICIES}/${(await policiesByDescription()).get(STOREFRONT)!.id}`,
    ]);
    expect((await policiesByDescription()).get(STOREFRONT)!.action).toBe('allow');
  }, 180_000);

  test("the policy pack reviews the plugin's resources: Stripe dropped from checkout fails the preview, naming the script", async () => {
    // The checkout's value as the test before this one left it (reordered).
    const kept = "script-src https://www.google.com/recaptcha/api.js js.stripe.com 'self'";
    const dropped = "script-src https://www.google.com/recaptcha/api.js 'self'";
    editProgram(kept, dropped);
    const before = engine.output.length;
    try {
      await expect(engine.preview({ policyPacks: [POLICY_PACK] })).rejects.toThrow();
    } finally {
      editProgram(dropped, kept);
    }
    const text = engine.output.slice(before).join('');
    expect(text).toContain('csp-blocks-detected-scripts');
    expect(text).toContain('https://js.stripe.com/v3/fingerprinted/js/elements.js');
  }, 180_000);

  test('destroy removes the policies and the notification and turns page security off again', async () => {
    // The stack's output as the backend's state file holds it, without running `pulumi stack output`.
    const stackResource = JSON.parse(engine.stateText()).checkpoint.latest.resources.find(
      (resource: { type: string }) => resource.type === 'pulumi:pulumi:Stack',
    );
    const notificationId = stackResource.outputs.healthNotificationId;
    expect(notificationId).toEqual(expect.any(String));
    const destroy = await engine.destroy();
    expect(destroy.summary.result).toBe('succeeded');
    expect((await policiesByDescription()).size).toBe(0);
    expect((await emu.api('GET', `accounts/${DEMO.accountId}/alerting/v3/policies/${notificationId}`)).status).toBe(
      404,
    );
    expect((await emu.api('GET', `zones/${DEMO.zoneId}/page_security`)).body.result.enabled).toBe(false);
  }, 180_000);
});

describe('two explicit providers in one YAML program', () => {
  const FIRST_TOKEN = 'e2e-yaml-first-token-1a2b3c';
  const SECOND_TOKEN = 'e2e-yaml-second-token-4d5e6f';
  let first: TestEmulator;
  let second: TestEmulator;
  let engine: EngineStack;

  async function policies(emu: TestEmulator): Promise<Array<Record<string, string>>> {
    return (await emu.api('GET', POLICIES)).body.result;
  }

  beforeAll(async () => {
    first = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [FIRST_TOKEN] });
    second = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [SECOND_TOKEN] });
    engine = await engineStack({
      projectDir: path.join(__dirname, 'projects', 'yaml-two-providers'),
      emu: first,
      token: FIRST_TOKEN,
      config: {
        zoneId: { value: DEMO.zoneId },
        firstBaseUrl: { value: first.baseUrl },
        firstToken: { value: FIRST_TOKEN, secret: true },
        secondBaseUrl: { value: second.baseUrl },
        secondToken: { value: SECOND_TOKEN, secret: true },
      },
    });
    usePluginBuild(engine.workDir);
  }, 60_000);
  afterAll(async () => {
    await engine?.dispose();
    await first?.close();
    await second?.close();
  });

  test('each policy lands in its provider’s service, with its token, and destroy removes both', async () => {
    const up = await engine.up();
    expect(up.summary.resourceChanges).toEqual({ create: 5 });
    const [inFirst] = await policies(first);
    const [inSecond] = await policies(second);
    expect(await policies(first)).toHaveLength(1);
    expect(await policies(second)).toHaveLength(1);
    expect(inFirst).toMatchObject({ id: up.outputs.firstPolicyId!.value, description: 'Under the first provider' });
    expect(inSecond).toMatchObject({ id: up.outputs.secondPolicyId!.value, description: 'Under the second provider' });
    const state = engine.stateText();
    expect(state).not.toContain(FIRST_TOKEN);
    expect(state).not.toContain(SECOND_TOKEN);

    await engine.destroy();
    expect(await policies(first)).toEqual([]);
    expect(await policies(second)).toEqual([]);
  }, 180_000);
});
