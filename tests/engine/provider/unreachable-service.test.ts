import { engineStack, failureOf, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

/**
 * What a user reads when the service cannot be reached: the flagship program through the real
 * engine with `edgeguard:baseUrl` at a local port where nothing listens. Every failing resource
 * and program step says once what failed, where, and which setting to check; no stack trace, no
 * dump of the error's properties, no colour codes.
 */

const TOKEN = 'e2e-unreachable-token-5b81c0de';
const NOWHERE = 'http://127.0.0.1:1/client/v4';
const HINT = `check that the service at ${NOWHERE} is reachable, or set edgeguard:baseUrl (or EDGEGUARD_BASE_URL) to its address`;

let emu: TestEmulator;
const stacks: EngineStack[] = [];

beforeAll(async () => {
  emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
}, 60_000);
afterAll(async () => {
  for (const stack of stacks) await stack.dispose();
  await emu?.close();
});

async function flagship(): Promise<EngineStack> {
  const stack = await engineStack({ projectDir: REPO, inPlace: true, emu, token: TOKEN });
  stacks.push(stack);
  return stack;
}

/** The lines of the engine's closing "Diagnostics:" section that report an error. */
function diagnosticErrors(text: string): string[] {
  const section = text.slice(text.lastIndexOf('Diagnostics:'), text.lastIndexOf('Resources:'));
  return section
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('error: ') && line !== 'error: update failed');
}

function expectNoDump(text: string): void {
  expect(text).not.toMatch(/<ref \*|causeMessage|baseUrl:|\n\s+at \S|unhandled exception/);
  expect(text).not.toContain('\u001b['); // colour codes
}

test('a new stack: each failing resource and program step says once what failed and which setting to check', async () => {
  const stack = await flagship();
  await stack.stack.setConfig('edgeguard:baseUrl', { value: NOWHERE });
  const error = await failureOf(stack.up());
  const text = error.message;
  expectNoDump(text);
  const errors = diagnosticErrors(text);
  // The two read helpers of the program and the resources that reached the service.
  expect(errors.some((line) => line.includes('list load-balancing pools (GET accounts/'))).toBe(true);
  expect(errors.some((line) => line.includes('list page security scripts (GET zones/'))).toBe(true);
  expect(errors.some((line) => line.includes('get page security settings (GET zones/'))).toBe(true);
  for (const line of errors)
    expect(line).toContain(`got no response: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:1); ${HINT}`);
  expect(new Set(errors).size).toBe(errors.length);
}, 180_000);

test('a deployed stack that loses the service fails its program steps the same way', async () => {
  const stack = await flagship();
  await stack.up();
  await stack.stack.setConfig('edgeguard:baseUrl', { value: NOWHERE });
  const text = (await failureOf(stack.up())).message;
  expectNoDump(text);
  const errors = diagnosticErrors(text);
  expect(errors.length).toBeGreaterThan(0);
  for (const line of errors) expect(line).toContain(HINT);
  expect(new Set(errors).size).toBe(errors.length);
}, 240_000);
