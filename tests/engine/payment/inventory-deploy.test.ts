import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AuditEvidence, AuditScript } from '../../../provider/payment/evidence-schema';
import { startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { engineStack, failureOf, type EngineStack } from '../../helpers/engine';
import { usePluginBuild } from '../../helpers/languages';
import { runToEnd } from '../../helpers/process';
import { REPO } from '../../helpers/repo';
import { evidenceOf, paymentSection, runAudit, runReview, violationsOf } from '../../helpers/stack-commands';

/**
 * The inventory edgeguard-inventory writes, deployed by the real engine, in TypeScript (the
 * dynamic resources) and in YAML (the provider plugin's single executable), each against an
 * emulator of its own seeded with payment pages' scripts: preview refuses the program as written,
 * naming the first entry and its blank justification; once a person has justified every entry,
 * `pulumi up` deploys the inventory and one enforcing policy per host, whose value at the service
 * is the inventory's `cspSources` with object-src and base-uri, every script pinned at its live
 * hash; a second `up` changes nothing. A script URL holding `$`, `${...}` and a quote proves the
 * quoting of both languages through their real parsers.
 *
 * Then the deployed stack as the nightly job (`edgeguard-review --refresh --fail-on-drift`) and the
 * weekly audit (`edgeguard-audit`) see it, built and run as a CI job runs them, the service's
 * settings in the stack's configuration alone (the token a secret): once the team has taken the
 * scripts the inventory left out off the payment pages, both pass; a new version of a pinned
 * script fails both, naming the script and both hashes; the change that re-pins it passes and is
 * listed, and once deployed the audit passes again; a new script on a payment page fails the
 * review. The YAML stack's resources are the plugin's (`edgeguard:index:...`), which the policy
 * pack and the audit must read as they read the dynamic ones.
 *
 * Those last three steps run on the YAML stack alone: on dynamic resources they are the steps of
 * tests/engine/review/payment-review.test.ts (a new version of the pinned script, its re-pin
 * deployed, a new script on the payment page), which makes the same assertions of the review and of
 * the audit on its stack, and a review costs a preview with the pack (a program run, the dynamic
 * provider's host, the pack) that would tell nothing more here.
 */

const TOKEN = 'e2e-inventory-token-3b9d27f1';
const BIN = path.join(REPO, 'dist', 'provider', 'cli', 'inventory.js');
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
/** A page of the zone that is no payment page. */
const BLOG = 'https://www.example.com/blog';
/** The script that appears on the payment page after the deployment. */
const WIDGET = 'https://cdn.chat.example/widget.js';
/** Stripe's hash as detected (and pinned by edgeguard-inventory), then the hash of its next version. */
const [STRIPE_PINNED, STRIPE_NEXT] = ['b'.repeat(64), '5e'.repeat(32)];
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

/**
 * What each language's project is: the file the command writes, what else the project needs, and
 * the package of the resources' type tokens (the dynamic provider's, or the plugin's).
 */
const LANGUAGES = {
  typescript: {
    file: 'index.ts',
    project: 'name: payment-scripts\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n',
    types: 'pulumi-nodejs:dynamic/edgeguard',
  },
  yaml: { file: 'Pulumi.yaml', project: undefined, types: 'edgeguard:index' },
} as const;

/** The scripts of an audit's evidence by URL, each once (a script on two payment pages shows on each). */
function auditedScripts(evidence: AuditEvidence): Map<string, AuditScript> {
  return new Map(
    evidence.inventories.flatMap((inventory) => inventory.pages.flatMap((page) => page.scripts.map((s) => [s.url, s]))),
  );
}

/**
 * The stack's deployment as its backend keeps it: the file `pulumi stack export` would print, read
 * directly rather than through one more engine command (about half a second of CPU each).
 */
function deploymentOf(engine: EngineStack): Deployment {
  return (JSON.parse(engine.stateText()) as { checkpoint: { latest: Deployment } }).checkpoint.latest;
}

/** The part of a deployment read here. */
interface Deployment {
  resources: Array<{ type: string; outputs?: Record<string, unknown> }>;
}

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
    // Transpile-only, as every engine test's program: the writer's TypeScript type-checks against
    // the package in tests/unit/payment/inventory-writer.test.ts, and this file runs it a dozen times.
    engine = await engineStack({
      projectDir: source,
      emu,
      token: TOKEN,
      providerEnv: false,
      config: {
        'edgeguard:baseUrl': { value: emu.baseUrl },
        'edgeguard:apiToken': { value: TOKEN, secret: true },
      },
    });
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

  test('the program as written pins each script it keeps at its live hash, each hash written once', () => {
    // The re-pin below edits the program where the hash is written: it must be there, and only there.
    for (const hash of [STRIPE_PINNED, 'c'.repeat(64), 'e'.repeat(64)])
      expect({ hash, times: written.split(`"${hash}"`).length - 1 }).toEqual({ hash, times: 1 });
  });

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

    const state = deploymentOf(engine);
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

  test('the left-out scripts taken off the payment pages: the nightly review and the weekly audit pass, the pack reading the stack’s resources', async () => {
    // What edgeguard-inventory said of the two scripts it left out: the malicious one must go, and
    // the http: one cannot be authorized. The team removes them from the payment pages, and a
    // refresh records that the inventory's pages now hold only what it authorizes.
    await emu.seed({
      scripts: [
        { zone_id: ZONE_ID, url: SKIMMER, page_urls: [BLOG], js_integrity_score: 4 },
        { zone_id: ZONE_ID, url: LEGACY, page_urls: [BLOG] },
      ],
    });
    await engine.refresh();

    const state = deploymentOf(engine);
    const { types } = LANGUAGES[language];
    expect(state.resources.map((resource) => resource.type).filter((type) => !type.startsWith('pulumi:'))).toEqual([
      `${types}:ScriptInventory`,
      `${types}:CspPolicy`,
      `${types}:CspPolicy`,
    ]);

    const review = await runReview(engine, '--refresh', '--fail-on-drift');
    expect({ code: review.code, stderr: review.stderr.match(/^edgeguard-review: .*$/m)?.[0] }).toEqual({
      code: 0,
      stderr: 'edgeguard-review: no mandatory policy violation',
    });
    expect(review.json.drift).toEqual([]);
    expect(review.json.violations).toEqual([]);
    expect(review.json.unjudged).toEqual([]);
    // The pack read the inventory and both policies enforcing it, whichever provider made them.
    expect(review.json.inventories).toHaveLength(1);
    const [inventory] = review.json.inventories;
    expect(inventory).toMatchObject({
      name: 'payment-scripts',
      cspSources: SOURCES,
      integrity: { unchanged: 3, unpinned: 0, changed: 0, unauthorized: 0 },
    });
    expect(inventory.csp).toEqual(
      ['checkout.example.com', 'pay.example.com'].map((host) => ({
        host,
        policies: [
          { name: `payment-csp-${host.replaceAll('.', '-')}`, governedBy: 'script-src', missing: [], extra: [] },
        ],
      })),
    );
    expect(paymentSection(review.markdown)).toContain('No script is unauthorized, changed or malicious.');

    const audit = await runAudit(engine);
    expect({ code: audit.code, stderr: audit.stderr }).toEqual({
      code: 0,
      stderr: expect.stringMatching(/^edgeguard-audit: pass: /),
    });
    const evidence = evidenceOf(audit);
    expect(evidence).toMatchObject({
      passed: true,
      counts: { scripts: 3, unchanged: 3, unpinned: 0, changed: 0, unauthorized: 0 },
    });
    expect(
      evidence.inventories[0]!.pages.map((page) => [page.page, page.headers.map((h) => h.managedBy?.name)]),
    ).toEqual([
      ['checkout.example.com/pay', ['payment-csp-checkout-example-com']],
      ['pay.example.com', ['payment-csp-pay-example-com']],
    ]);
  }, 120_000);

  // On dynamic resources, tests/engine/review/payment-review.test.ts takes these steps (see above).
  if (language === 'yaml') {
    test('a new version of a pinned script: the nightly review fails (payment-script-changed) and the audit fails, each with both hashes', async () => {
      await emu.newScriptVersion(ZONE_ID, STRIPE, { hash: STRIPE_NEXT });

      const review = await runReview(engine, '--refresh', '--fail-on-drift');
      expect(review.code).toBe(1);
      const found = violationsOf(review.json);
      expect(Object.keys(found)).toEqual(['mandatory payment-script-changed']);
      expect(found['mandatory payment-script-changed']).toContain(
        'ScriptInventory "payment-scripts": 1 pinned script is no longer the version approved:',
      );
      expect(found['mandatory payment-script-changed']).toContain(
        `  - ${STRIPE} on ${PAY} (entry ${STRIPE}; pinned hash ${STRIPE_PINNED}; live hash ${STRIPE_NEXT}; `,
      );
      expect(review.json.inventories[0].integrity).toEqual({ unchanged: 2, unpinned: 0, changed: 1, unauthorized: 0 });

      const audit = await runAudit(engine);
      expect(audit.code).toBe(1);
      expect(audit.stderr).toContain(`${STRIPE}: changed, pinned ${STRIPE_PINNED}, live ${STRIPE_NEXT} since `);
      const evidence = evidenceOf(audit);
      expect(evidence.passed).toBe(false);
      expect(evidence.counts).toMatchObject({ unchanged: 2, changed: 1, unauthorized: 0 });
      expect(auditedScripts(evidence).get(STRIPE)).toMatchObject({
        integrity: 'changed',
        entry: { url: STRIPE, hash: STRIPE_PINNED },
        hash: STRIPE_NEXT,
      });
    }, 120_000);

    test('the change re-pinning it passes the review, which lists the entry as re-pinned; deployed, the audit passes again', async () => {
      const program = fs.readFileSync(programFile(), 'utf8');
      expect(program.split(`"${STRIPE_PINNED}"`)).toHaveLength(2);
      fs.writeFileSync(programFile(), program.replace(`"${STRIPE_PINNED}"`, `"${STRIPE_NEXT}"`));

      const review = await runReview(engine);
      expect(review.code).toBe(0);
      expect(review.json.violations).toEqual([]);
      expect(review.json.inventories[0].changes.repinned).toEqual([
        { entry: expect.objectContaining({ text: STRIPE, hash: STRIPE_NEXT }), from: STRIPE_PINNED, to: STRIPE_NEXT },
      ]);
      expect(paymentSection(review.markdown)).toContain(
        `**Entries re-pinned (1)**\n\n- url \`${STRIPE}\`: hash \`${STRIPE_PINNED}\` -> \`${STRIPE_NEXT}\`; Reviewed with the payments team (3)`,
      );

      const up = await engine.up();
      expect(up.summary.resourceChanges).toEqual({ update: 1, same: 3 });

      const audit = await runAudit(engine);
      expect(audit.code).toBe(0);
      expect(evidenceOf(audit).counts).toMatchObject({ scripts: 3, unchanged: 3, changed: 0, unauthorized: 0 });
    }, 120_000);

    test('a new script on a payment page fails the review (payment-script-unauthorized), naming it', async () => {
      await emu.seed({ scripts: [{ zone_id: ZONE_ID, url: WIDGET, page_urls: [PAY], js_integrity_score: 55 }] });

      const review = await runReview(engine, '--refresh', '--fail-on-drift');
      expect(review.code).toBe(1);
      const found = violationsOf(review.json);
      expect(Object.keys(found)).toEqual(['mandatory payment-script-unauthorized']);
      expect(found['mandatory payment-script-unauthorized']).toContain(
        'ScriptInventory "payment-scripts": 1 script detected on its payment pages is authorized by no entry:',
      );
      expect(found['mandatory payment-script-unauthorized']).toContain(
        `  - ${WIDGET} on ${PAY} (scores: js_integrity_score 55`,
      );
    }, 120_000);
  }
});
