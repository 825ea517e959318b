import { CHECKOUT_VALUE, FLAGSHIP_HOSTNAME, FLAGSHIP_RESOURCES, STOREFRONT_VALUE } from '../../helpers/flagship';
import { DEMO } from '../../../emulator/seed/demo';
import type { LoggedRequest } from '../../../emulator/core/request-log';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { apiPath, countFaults, pause, read, secondsSince, WRITE_METHODS, type FaultCount } from './support';

/**
 * The root project (the flagship program) through the real engine while the emulator injects
 * faults: 20% of API requests answered 503, 5% of connections reset after the request was handled
 * (the write is applied, the response lost), 200 ms on every request. Whatever the faults, the
 * emulator must hold exactly what the program declares afterwards: no duplicate policy,
 * notification or hostname, no pool left with an e-mail, nothing the state does not know about.
 */

const ZONE = DEMO.zoneId;
const ACCOUNT = DEMO.accountId;
const HOSTNAME = FLAGSHIP_HOSTNAME;
const FAULTS = { error_rate: 0.2, status: 503, reset_rate: 0.05, latency_ms: 200 };

/** Paths of the three creates that are not idempotent (POST), as fault patterns. */
const CREATE_PATHS = {
  cspPolicy: 'zones/*/page_security/policies',
  customHostname: 'zones/*/custom_hostnames',
  alertPolicy: 'accounts/*/alerting/v3/policies',
} as const;

/** The engine's resource ids by type (`CspPolicy`, ...), from the stack's state. */
function stateIds(engine: EngineStack): Record<string, string[]> {
  const resources = JSON.parse(engine.stateText()).checkpoint.latest.resources as Array<{ type: string; id?: string }>;
  const out: Record<string, string[]> = {};
  for (const resource of resources) {
    const type = resource.type.replace(/^pulumi-nodejs:dynamic\/edgeguard:/, '');
    if (type === resource.type || resource.id === undefined) continue;
    (out[type] ??= []).push(resource.id);
  }
  for (const ids of Object.values(out)) ids.sort();
  return out;
}

/**
 * Exactly the flagship's objects, and the same ones the state records: two CSP policies with the
 * declared values, the script inventory (held in the stack alone), one custom hostname (active, its ownership record published by the command),
 * one alert policy over every pool, no pool with an e-mail, page security on.
 */
async function expectExactlyDeclared(emu: TestEmulator, token: string, engine: EngineStack): Promise<void> {
  const policies = await read<any[]>(emu, token, `zones/${ZONE}/page_security/policies`);
  expect(policies.map((p) => p.value).sort()).toEqual([CHECKOUT_VALUE, STOREFRONT_VALUE].sort());
  const hostnames = await read<any[]>(emu, token, `zones/${ZONE}/custom_hostnames?per_page=100`);
  expect(hostnames.map((h) => ({ hostname: h.hostname, status: h.status }))).toEqual([
    { hostname: HOSTNAME, status: 'active' },
  ]);
  expect(await dnsRecords(emu)).toEqual([
    `TXT ${hostnames[0].ownership_verification.name} ${hostnames[0].ownership_verification.value}`,
  ]);
  const alerts = await read<any[]>(emu, token, `accounts/${ACCOUNT}/alerting/v3/policies`);
  expect(alerts).toHaveLength(1);
  const pools = await read<any[]>(emu, token, `accounts/${ACCOUNT}/load_balancers/pools`);
  expect(pools).toHaveLength(60);
  expect(pools.filter((pool) => pool.notification_email !== '').map((pool) => pool.name)).toEqual([]);
  expect([...alerts[0].filters.pool_id].sort()).toEqual(pools.map((pool) => pool.id).sort());
  expect((await read(emu, token, `zones/${ZONE}/page_security`)).enabled).toBe(true);

  // Nothing orphaned: the state holds exactly these objects' ids.
  expect(stateIds(engine)).toEqual({
    PageSecuritySetting: [ZONE],
    CspPolicy: policies.map((p) => p.id).sort(),
    CustomHostname: [hostnames[0].id],
    CustomHostnameValidation: [hostnames[0].id],
    HealthNotification: [alerts[0].id],
    PoolNotificationMigration: [ACCOUNT],
    ScriptInventory: [ZONE],
  });
}

/** What the emulator's DNS holds (the control API is never faulted), as `TYPE name value` lines. */
async function dnsRecords(emu: TestEmulator): Promise<string[]> {
  const reply = await emu.control('GET', 'dns');
  expect(reply.status).toBe(200);
  return (reply.body.result as Array<{ records: Array<{ type: string; name: string; value: string }> }>).flatMap(
    (entry) => entry.records.map((r) => `${r.type} ${r.name} ${r.value}`),
  );
}

/** Nothing of the stack left: no policy, hostname, ownership record or alert policy; page security back off. */
async function expectNothingLeft(emu: TestEmulator, token: string): Promise<void> {
  expect(await read(emu, token, `zones/${ZONE}/page_security/policies`)).toEqual([]);
  expect(await read(emu, token, `zones/${ZONE}/custom_hostnames`)).toEqual([]);
  expect(await dnsRecords(emu)).toEqual([]);
  expect(await read(emu, token, `accounts/${ACCOUNT}/alerting/v3/policies`)).toEqual([]);
  expect((await read(emu, token, `zones/${ZONE}/page_security`)).enabled).toBe(false);
}

describe('the flagship under 20% 503s, 5% resets after commit and 200 ms latency', () => {
  const TOKEN = 'faults-flagship-token-6c02e5d1';
  let emu: TestEmulator;
  let engine: EngineStack;
  /** What each operation met, for the figures printed at the end. */
  const figures: Array<{ operation: string; seconds: number } & FaultCount & { hits: string[] }> = [];

  /**
   * Runs one engine operation with the faults on (a fixed random seed per operation, so a run can
   * be repeated), then clears them so that the test's own reads see the truth.
   */
  async function underFaults<T>(operation: string, seed: number, run: () => Promise<T>): Promise<T> {
    expect((await emu.control('POST', 'faults', { ...FAULTS, seed })).status).toBe(200);
    const mark = emu.mark();
    const started = Date.now();
    try {
      return await run();
    } finally {
      expect((await emu.control('POST', 'faults', {})).status).toBe(200);
      const entries = await emu.requests(mark);
      // What each fault hit: `POST zones/:id/custom_hostnames 503`, `DELETE ... reset`.
      const hits = entries
        .filter((e) => e.status === 503 || e.status === null)
        .map((e) => `${e.method} ${apiPath(e).replace(/[0-9a-f]{32}/g, ':id')} ${e.status ?? 'reset'}`);
      figures.push({ operation, seconds: secondsSince(started), ...countFaults(entries), hits });
    }
  }

  beforeAll(async () => {
    emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
    engine = await engineStack({ projectDir: REPO, inPlace: true, emu, token: TOKEN });
  }, 60_000);
  afterAll(async () => {
    process.stdout.write(
      `engine-faults figures (flagship under faults):\n${figures.map((f) => `  ${JSON.stringify(f)}`).join('\n')}\n`,
    );
    await engine?.dispose();
    await emu?.close();
  });

  test('up succeeds, and the emulator holds exactly the declared objects', async () => {
    const up = await underFaults('up', 1, () => engine.up());
    expect(up.summary.result).toBe('succeeded');
    expect(up.summary.resourceChanges).toEqual({ create: FLAGSHIP_RESOURCES });
    await expectExactlyDeclared(emu, TOKEN, engine);
    // The faults really hit this run.
    const hit = figures.at(-1)!;
    expect(hit.errors + hit.resets).toBeGreaterThan(0);
  }, 300_000);

  // Each cycle is one more draw of faults on every kind of request: deletes, then creates again.
  test.each([1, 2, 3, 4])(
    'cycle %i: destroy under the same faults leaves nothing behind, and up again makes exactly the declared objects',
    async (cycle) => {
      const destroyed = await underFaults(`destroy ${cycle}`, 10 * cycle + 1, () => engine.destroy());
      expect(destroyed.summary.resourceChanges).toEqual({ delete: FLAGSHIP_RESOURCES });
      await expectNothingLeft(emu, TOKEN);

      const up = await underFaults(`up ${cycle + 1}`, 10 * cycle + 2, () => engine.up());
      expect(up.summary.resourceChanges).toEqual({ create: FLAGSHIP_RESOURCES });
      await expectExactlyDeclared(emu, TOKEN, engine);
    },
    300_000,
  );

  test('with the faults cleared a preview shows no changes; both kinds of fault hit, and no token leaked', async () => {
    const mark = emu.mark();
    const preview = await engine.preview({ expectNoChanges: true });
    expect(preview.changeSummary).toEqual({ same: FLAGSHIP_RESOURCES });
    expect((await emu.requests(mark)).filter((r) => WRITE_METHODS.has(r.method))).toEqual([]);

    // Across the nine operations both kinds of fault hit (the seeds fix the draws; the figures
    // printed at the end say how many, and on what).
    expect(figures).toHaveLength(9);
    const total = figures.reduce((sum, f) => ({ errors: sum.errors + f.errors, resets: sum.resets + f.resets }), {
      errors: 0,
      resets: 0,
    });
    expect(total.errors).toBeGreaterThan(5);
    expect(total.resets).toBeGreaterThan(0);
    expect(engine.stateText()).not.toContain(TOKEN);
    expect(engine.output.join('')).not.toContain(TOKEN);
  }, 180_000);
});

describe('a create whose response is lost after the service applied it', () => {
  const TOKEN = 'faults-lost-create-token-90ab13f4';
  let emu: TestEmulator;
  let engine: EngineStack;

  beforeAll(async () => {
    emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
    engine = await engineStack({ projectDir: REPO, inPlace: true, emu, token: TOKEN });
  }, 60_000);
  afterAll(async () => {
    await engine?.dispose();
    await emu?.close();
  });

  test('does not create a second object: each create path loses its first response, and up still makes exactly one of each', async () => {
    const mark = emu.mark();
    const creates = (entries: LoggedRequest[], pattern: RegExp) =>
      entries.filter((e) => e.method === 'POST' && pattern.test(apiPath(e)));
    const patterns = {
      cspPolicy: /^zones\/[0-9a-f]{32}\/page_security\/policies$/,
      customHostname: /^zones\/[0-9a-f]{32}\/custom_hostnames$/,
      alertPolicy: /^accounts\/[0-9a-f]{32}\/alerting\/v3\/policies$/,
    };
    // Every POST to the three create paths commits and then loses its response, until each path
    // has lost one; then the faults are cleared, so a second POST would go through and be seen.
    expect(
      (await emu.control('POST', 'faults', { reset_rate: 1, methods: ['POST'], paths: Object.values(CREATE_PATHS) }))
        .status,
    ).toBe(200);
    let cleared = false;
    const watcher = (async () => {
      while (!cleared) {
        const entries = await emu.requests(mark);
        if (Object.values(patterns).every((pattern) => creates(entries, pattern).some((e) => e.status === null))) {
          await emu.control('POST', 'faults', {});
          cleared = true;
          return;
        }
        await pause(50);
      }
    })();

    let up;
    try {
      up = await engine.up();
    } finally {
      const wasCleared = cleared;
      cleared = true;
      await watcher;
      await emu.control('POST', 'faults', {});
      expect(wasCleared).toBe(true);
    }
    expect(up.summary.result).toBe('succeeded');
    expect(up.summary.resourceChanges).toEqual({ create: FLAGSHIP_RESOURCES });
    await expectExactlyDeclared(emu, TOKEN, engine);

    // One POST per object, and none of them answered: the lost response was recovered by finding
    // the object, never by posting it again.
    const entries = await emu.requests(mark);
    const statuses = (pattern: RegExp) => creates(entries, pattern).map((e) => e.status);
    expect(statuses(patterns.customHostname)).toEqual([null]);
    expect(statuses(patterns.alertPolicy)).toEqual([null]);
    // The two policies are created at once: the second may have been sent after the clearing.
    expect(statuses(patterns.cspPolicy)).toHaveLength(2);
    expect(statuses(patterns.cspPolicy)).toContain(null);

    const again = await engine.preview({ expectNoChanges: true });
    expect(again.changeSummary).toEqual({ same: FLAGSHIP_RESOURCES });
  }, 300_000);
});
