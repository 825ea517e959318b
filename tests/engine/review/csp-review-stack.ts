import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { POLICY_PACK } from '../../../provider/review/review-stack';
import { engineStack, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { REVIEW_CLI, runOnStack } from '../../helpers/stack-commands';

/**
 * The examples/csp-review stack deployed against the demo world, and what its review tests
 * (csp-review.test.ts) do with it: a pull request's change previewed with the pack and reviewed
 * case by case, two policies on a host, drift, the pack in `pulumi up`.
 */

/** The engine this repository builds. */
export const PULUMI_BIN = path.join(REPO, '.tools', 'pulumi', 'bin');
export const TOKEN = 'e2e-review-token-8d1c44a0';
export const REFUSED = 'e2e-review-token-the-emulator-refuses';
export const ORIGINAL = "script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js";
/** The demo world's scripts on checkout pages that the cases are about (emulator/seed/demo.ts). */
export const STRIPE_ELEMENTS = 'https://js.stripe.com/v3/fingerprinted/js/elements.js';
export const MALICIOUS = 'https://analytics-cdn.example.info/collect.min.js';
/** Its connections (issue 20): the payment API, and a skimmer's drop the service reports malicious. */
export const PAYMENT_API = 'https://api.stripe.com/v1/payment_intents';
export const SKIMMER = 'https://skimmer-drop.example.info/c.php';
/** A connect-src that allows every connection detected on the checkout but the skimmer's. */
export const CONNECT = "connect-src 'self' api.stripe.com m.stripe.network";

/** The file's emulator and stack, once {@link deployReviewStack}'s `beforeAll` has run. */
export let emu: TestEmulator;
export let engine: EngineStack;

/**
 * Deploys the stack before the file's tests and ends it after them. `tmp` is the temporary folder
 * of the file's engine, reviews and packs (`TMPDIR`), its own so that another test's review
 * running meanwhile is not counted: the pack's read ahead must leave nothing there.
 */
export function deployReviewStack(): { tmp: string } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-csp-review-tmp-'));
  beforeAll(async () => {
    emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
    engine = await engineStack({
      projectDir: path.join(REPO, 'examples', 'csp-review'),
      emu,
      token: TOKEN,
      config: {
        'edgeguard:baseUrl': { value: emu.baseUrl },
        'edgeguard:apiToken': { value: TOKEN, secret: true },
      },
    });
    engine.stack.workspace.envVars = { ...engine.stack.workspace.envVars, TMPDIR: tmp };
    await engine.up();
  }, 120_000);
  afterAll(async () => {
    await engine?.dispose();
    await emu?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  return { tmp };
}

/** The pull request: the checkout policy's value (the program's first) becomes `value`. */
export function propose(value: string): void {
  const program = path.join(engine.workDir, 'index.ts');
  const text = fs.readFileSync(program, 'utf8');
  const current = /value: "(script-src [^"]*)"/.exec(text)?.[1];
  if (current === undefined) throw new Error('the checkout policy is not in the program');
  fs.writeFileSync(program, text.replace(`value: "${current}"`, `value: "${value}"`));
}

/** A pack configuration in the project (where edgeguard-review looks for it), or none. */
export function packConfig(config: object | undefined): void {
  const file = path.join(engine.workDir, 'edgeguard-policy-config.json');
  if (config === undefined) fs.rmSync(file, { force: true });
  else fs.writeFileSync(file, JSON.stringify(config));
}

/**
 * `pulumi preview --policy-pack ...` of the stack, run by hand as docs/guides/reviewing.md shows:
 * the pack reads the service's settings from its environment alone, here the emulator's address
 * and token that the stack's environment gives the providers (`EDGEGUARD_BASE_URL`,
 * `EDGEGUARD_API_TOKEN`, tests/helpers/engine.ts); `withoutSettings` leaves every EDGEGUARD_*
 * variable out, the settings then in the stack's configuration alone, which the pack does not
 * read. What it printed, and its failure if it failed.
 */
export async function previewWithPack({ withoutSettings = false }: { withoutSettings?: boolean } = {}): Promise<{
  failed: boolean;
  text: string;
}> {
  const options = { policyPacks: [POLICY_PACK] };
  const before = engine.output.length;
  const workspace = engine.stack.workspace;
  const envVars = workspace.envVars;
  if (envVars.EDGEGUARD_BASE_URL !== emu.baseUrl || envVars.EDGEGUARD_API_TOKEN === undefined)
    throw new Error("the stack's environment does not give the emulator's settings");
  if (withoutSettings)
    workspace.envVars = Object.fromEntries(Object.entries(envVars).filter(([name]) => !name.startsWith('EDGEGUARD_')));
  let failed = false;
  try {
    await engine.preview(options);
  } catch {
    failed = true;
  } finally {
    workspace.envVars = envVars;
  }
  return { failed, text: engine.output.slice(before).join('') };
}

/** Everything the reviews printed and wrote ({@link review}), for the last test to search. */
export const reviewOutputs: string[] = [];

export interface ReviewRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

/**
 * `edgeguard-review --markdown - --json <file> ...extra` on the stack as a CI job runs it
 * ({@link runOnStack}): the Markdown on stdout, so the preview's own output goes to stderr.
 */
export async function review(...extra: string[]): Promise<ReviewRun> {
  const json = path.join(engine.workDir, 'review.json');
  fs.rmSync(json, { force: true });
  const {
    status: code,
    stdout,
    stderr,
  } = await runOnStack(engine, REVIEW_CLI, ['--markdown', '-', '--json', json, ...extra]);
  const text = fs.existsSync(json) ? fs.readFileSync(json, 'utf8') : undefined;
  reviewOutputs.push(stdout, stderr, text ?? '');
  return { code, stdout, stderr, json: text !== undefined ? JSON.parse(text) : undefined };
}

/** The Markdown's Weaknesses section. */
export function weaknessesSection(markdown: string): string {
  return markdown.split('\n### Weaknesses\n')[1]?.split('\n### ')[0] ?? '';
}

export function checkoutReview(run: ReviewRun): any {
  return run.json.policies.find((policy: { name: string }) => policy.name === 'checkout-scripts');
}
