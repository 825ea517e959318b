import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { engineStack, failureOf, type EngineStack } from '../../helpers/engine';
import { usePluginBuild } from '../../helpers/languages';
import { runToEnd } from '../../helpers/process';
import { REPO } from '../../helpers/repo';

/**
 * The inventory edgeguard-inventory writes, deployed by the real engine, in TypeScript (the
 * dynamic resources) and in YAML (the provider plugin's single executable), each against an
 * emulator of its own seeded with payment pages' scripts: preview refuses the program as written,
 * naming the first entry and its blank justification; once a person has justified every entry,
 * `pulumi up` deploys the inventory and one enforcing policy per host, whose value at the service
 * is the inventory's `cspSources` with object-src and base-uri, every script pinned at its live
 * hash; a second `up` changes nothing. A script URL holding `$`, `${...}` and a quote proves the
 * quoting of both languages through their real parsers.
 */

const TOKEN = 'e2e-inventory-token-3b9d27f1';
const BIN = path.join(REPO, 'dist', 'provider', 'bin', 'inventory.js');
const WORK = path.join(REPO, '.edgeguard', 'e2e');
const POLICIES = `zones/${ZONE_ID}/page_security/policies`;
const CLOSING = "; object-src 'none'; base-uri 'self'";

const PAY = 'https://checkout.example.com/pay';
const STRIPE = 'https://js.stripe.com/v3/fingerprinted/js/elements.js';
const PAYMENT = 'https://checkout.example.com/js/payment.js';
/** What Pulumi YAML would read as an interpolation, and a quote, unless the program escapes them. */
const HOSTILE = "https://cdn.example.net/js/a$b'c.js?v=${zoneId}";
const SKIMMER = 'https://analytics-cdn.example.info/collect.min.js';
const LEGACY = 'http://cdn.example.net/legacy.js';
/** The sources the justified inventory authorizes, canonical (a quote in a CSP path is percent-encoded). */
const SOURCES = `https://cdn.example.net/js/a$b%27c.js ${PAYMENT} ${STRIPE}`;

const SEED = {
  scripts: [
    { zone_id: ZONE_ID, url: STRIPE, page_urls: [PAY], hash: 'b'.repeat(64) },
    {
      zone_id: ZONE_ID,
      url: PAYMENT,
      page_urls: [PAY, `${PAY}/confirm`],
      hash: 'c'.repeat(64),
      versions: [{ hash: 'c'.repeat(64) }, { hash: 'd'.repeat(64) }],
    },
    { zone_id: ZONE_ID, url: HOSTILE, page_urls: ['https://pay.example.com/'], hash: 'e'.repeat(64) },
    { zone_id: ZONE_ID, url: SKIMMER, page_urls: [PAY], js_integrity_score: 4 },
    { zone_id: ZONE_ID, url: LEGACY, page_urls: [PAY] },
  ],
};

/** What each language's project is: the file the command writes, and what else the project needs. */
const LANGUAGES = {
  typescript: {
    file: 'index.ts',
    project: 'name: payment-scripts\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n',
  },
  yaml: { file: 'Pulumi.yaml', project: undefined },
} as const;

describe.each(Object.keys(LANGUAGES) as Array<keyof typeof LANGUAGES>)('%s', (language) => {
  let emu: TestEmulator;
  let engine: EngineStack;
  let written: string;
  const source = path.join(WORK, `inventory-${randomUUID().slice(0, 8)}`);

  /** The stack's copy of the program. */
  const programFile = () => path.join(engine.workDir, LANGUAGES[language].file);

  beforeAll(async () => {
    if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (npm test does)`);
    emu = await startTestEmulator({ tokens: [TOKEN] });
    await emu.seed(SEED);
    fs.mkdirSync(source, { recursive: true });
    const { file, project } = LANGUAGES[language];
    const run = await runToEnd(
      process.execPath,
      [
        BIN,
        ...['--zone', ZONE_ID, '--page', 'checkout.example.com/pay', '--page', 'pay.example.com'],
        ...['--language', language, '--out', path.join(source, file)],
      ],
      { env: { EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: TOKEN } },
    );
    if (run.status !== 0) throw new Error(`edgeguard-inventory failed: ${run.stderr}`);
    expect(run.stderr).toContain('an inventory of 3 of the 5 scripts detected');
    if (project !== undefined) fs.writeFileSync(path.join(source, 'Pulumi.yaml'), project);
    engine = await engineStack({ projectDir: source, emu, token: TOKEN });
    if (language === 'yaml') usePluginBuild(engine.workDir);
    written = fs.readFileSync(programFile(), 'utf8');
  }, 60_000);
  afterAll(async () => {
    await engine?.dispose();
    await emu?.close();
    fs.rmSync(source, { recursive: true, force: true });
  });

  test('preview refuses the program as written, naming the first entry and its blank justification; nothing is written', async () => {
    const mark = emu.mark();
    const failure = await failureOf(engine.preview());
    expect(failure.message).toContain(`scripts[0] (url "${HOSTILE}"): invalid justification "TODO: justify"`);
    expect(failure.message).toContain('a person must write why the script is on the payment pages');
    expect(await emu.writesSince(mark)).toEqual([]);
  }, 60_000);

  test('justified, up deploys the inventory and an enforcing policy per host with its sources; a second up changes nothing', async () => {
    let justified = 0;
    const text = written.replace(
      /justification: "TODO: justify"/g,
      () => `justification: "Reviewed with the payments team (${++justified})"`,
    );
    expect(justified).toBe(3);
    fs.writeFileSync(programFile(), text);

    const up = await engine.up();
    // The stack, the inventory and its two policies.
    expect(up.summary.resourceChanges).toEqual({ create: 4 });

    const state = (await engine.stack.exportStack()).deployment as {
      resources: Array<{ type: string; outputs?: Record<string, unknown> }>;
    };
    const inventory = state.resources.find((resource) => resource.type.endsWith('ScriptInventory'))!.outputs!;
    expect(inventory.cspSources).toBe(SOURCES);
    // Every script kept is pinned at its live hash; the two left out are what no entry authorizes.
    const integrity = Object.fromEntries(
      (inventory.detected as Array<{ url: string; integrity: string }>).map((script) => [script.url, script.integrity]),
    );
    expect(integrity).toEqual({
      [HOSTILE]: 'unchanged',
      [PAYMENT]: 'unchanged',
      [STRIPE]: 'unchanged',
      [SKIMMER]: 'unauthorized',
      [LEGACY]: 'unauthorized',
    });

    const policies = (await emu.api('GET', POLICIES)).body.result as Array<Record<string, string>>;
    expect(
      policies
        .map(({ action, expression, value, enabled }) => ({ action, expression, value, enabled }))
        .sort((a, b) => a.expression!.localeCompare(b.expression!)),
    ).toEqual(
      ['checkout.example.com', 'pay.example.com'].map((host) => ({
        action: 'allow',
        expression: `http.host eq "${host}"`,
        value: `script-src ${SOURCES}${CLOSING}`,
        enabled: 'true',
      })),
    );

    // The program as written is one the engine and the language host take without a warning.
    expect(engine.output.join('\n')).not.toMatch(/warning/i);

    const mark = emu.mark();
    const again = await engine.up();
    expect(again.summary.resourceChanges).toEqual({ same: 4 });
    expect(await emu.writesSince(mark)).toEqual([]);
  }, 120_000);
});
