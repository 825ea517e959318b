import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { DEMO } from '../../emulator/seed/demo';
import { POLICY_PACK } from '../../provider/review/review-stack';
import { engineStack, REPO, type EngineStack } from '../helpers/engine';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * The policy pack in `pulumi up`, as the README says it works: its CSP checks are stack policies,
 * so a mandatory violation stops `pulumi up` in the preview it makes first, before any change, but
 * `pulumi up --skip-preview` (which the Automation API's `up` always passes) makes the change and
 * reports the violation after it. The examples/csp-review stack against the demo world, with the
 * change of tests/e2e/csp-review.test.ts that blocks a detected checkout script.
 */

const TOKEN = 'e2e-review-up-token-2f7a90c1';
const BLOCKING = "script-src 'self' https://www.google.com/recaptcha/api.js";
const ORIGINAL = "script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js";

let emu: TestEmulator;
let engine: EngineStack;

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
  await engine.up();
  const program = path.join(engine.workDir, 'index.ts');
  const text = fs.readFileSync(program, 'utf8');
  if (!text.includes(`value: "${ORIGINAL}"`)) throw new Error('the checkout policy is not in the program');
  fs.writeFileSync(program, text.replace(`value: "${ORIGINAL}"`, `value: "${BLOCKING}"`));
}, 120_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

/** The live values of the zone's CSP policies. */
async function liveValues(): Promise<string[]> {
  const reply = await emu.api('GET', `zones/${DEMO.zoneId}/page_security/policies`);
  return reply.body.result.map((policy: { value: string }) => policy.value).sort();
}

test('pulumi up with the pack stops in its preview: the violation is reported and the policy is unchanged', async () => {
  const before = await liveValues();
  expect(before).toContain(ORIGINAL);
  // Asynchronously: the emulator answers the pack from this process.
  const run = await promisify(execFile)(
    path.join(REPO, '.tools', 'pulumi', 'bin', 'pulumi'),
    ['up', '--yes', '--non-interactive', '--stack', engine.stack.name, '--policy-pack', POLICY_PACK],
    { cwd: engine.workDir, env: { ...process.env, ...engine.stack.workspace.envVars }, encoding: 'utf8' },
  ).then(
    () => ({ failed: false, stdout: '' }),
    (error: { stdout: string }) => ({ failed: true, stdout: error.stdout }),
  );
  expect(run.failed).toBe(true);
  expect(run.stdout).toContain('preview failed');
  expect(run.stdout).toContain('[mandatory]  csp-blocks-detected-scripts');
  expect(await liveValues()).toEqual(before);
}, 120_000);

test('pulumi up --skip-preview with the pack makes the change, then reports the violation', async () => {
  const failed = await engine.stack.up({ policyPacks: [POLICY_PACK] }).then(
    () => undefined,
    (error: Error) => error.message,
  );
  expect(failed).toContain('--skip-preview');
  expect(failed).toContain('[mandatory]  csp-blocks-detected-scripts');
  expect(await liveValues()).toContain(BLOCKING);
  expect(await liveValues()).not.toContain(ORIGINAL);
}, 120_000);
