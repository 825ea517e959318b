import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { runToEnd, type Finished } from '../../helpers/process';
import { REPO } from '../../helpers/repo';

/**
 * Bad input to `edgeguard-csp` (the compiled bin, as a user runs it): bad flags (exit 2 with the
 * usage), a zone the service does not know and credentials it refuses (exit 1, naming what to
 * check, never echoing the credential), and no file written in either case. The good case writes
 * the program; what it holds is judged by tests/unit/review/csp-writer.test.ts and, through the
 * engine, by tests/engine/review/csp-review.test.ts.
 */

const BIN = path.join(REPO, 'dist', 'provider', 'cli', 'csp.js');
const BAD_TOKEN = 'csp-bad-token-4c1d9e7a';
const UNKNOWN = 'c00000000000000000000000000000ff';
const HOST = 'checkout.example.com';

let emu: TestEmulator;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-csp-'));
const out = path.join(dir, 'csp.ts');

beforeAll(async () => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (npm test does)`);
  emu = await startTestEmulator();
  await emu.seed({
    scripts: [{ zone_id: ZONE_ID, url: 'https://js.stripe.com/v3/', first_page_url: `https://${HOST}/pay` }],
    connections: [{ zone_id: ZONE_ID, url: 'https://api.stripe.com/v1/tokens', first_page_url: `https://${HOST}/pay` }],
  });
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await emu?.close();
});
beforeEach(() => fs.rmSync(out, { force: true }));

function run(args: string[], token = TEST_TOKEN): Promise<Finished> {
  return runToEnd(process.execPath, [BIN, ...args], {
    env: { EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: token },
  });
}

test.each<[string, string[], RegExp]>([
  ['no --host', ['--zone', ZONE_ID], /^edgeguard-csp: --host is required/],
  ['no --zone', ['--host', HOST], /^edgeguard-csp: --zone is required/],
  ['a host that is not a hostname', ['--zone', ZONE_ID, '--host', 'shop..example.com'], /^edgeguard-csp: --host /],
  [
    'an action other than allow or log',
    ['--zone', ZONE_ID, '--host', HOST, '--action', 'block'],
    /^edgeguard-csp: --action must be allow or log, not "block"/,
  ],
  ['an unknown flag', ['--zone', ZONE_ID, '--host', HOST, '--hosts', HOST], /^edgeguard-csp: Unknown option '--hosts'/],
])('%s is bad usage: exit 2, the usage, no file', async (_case, args, message) => {
  const result = await run([...args, '--out', out]);
  expect(result.status).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toContain(
    '\nusage: edgeguard-csp --zone ZONE_ID --host HOST [--action allow|log] [--out FILE]\n',
  );
  expect(fs.existsSync(out)).toBe(false);
});

test('a zone the service does not know: exit 1, naming --zone, no file', async () => {
  const result = await run(['--zone', UNKNOWN, '--host', HOST, '--out', out]);
  expect(result.status).toBe(1);
  expect(result.stderr).toMatch(new RegExp(`^edgeguard-csp: zone ${UNKNOWN} was not found: check --zone\\.`));
  expect(fs.existsSync(out)).toBe(false);
});

test('credentials the service refuses: exit 1, naming --api-token, never the token, no file', async () => {
  const result = await run(['--zone', ZONE_ID, '--host', HOST, '--out', out], BAD_TOKEN);
  expect(result.status).toBe(1);
  expect(result.stderr).toMatch(/^edgeguard-csp: the service refused the credentials: check --api-token/);
  expect(result.stderr).not.toContain(BAD_TOKEN);
  expect(fs.existsSync(out)).toBe(false);
});

test('written: exit 0, the program in the file, the summary on stderr', async () => {
  const result = await run(['--zone', ZONE_ID, '--host', HOST, '--out', out]);
  expect(result.status).toBe(0);
  expect(result.stderr).toMatch(
    /^edgeguard-csp: wrote .*: a log policy for checkout\.example\.com allowing 1 of 1 scripts and 1 of 1 connections detected\n$/,
  );
  expect(fs.readFileSync(out, 'utf8')).toContain(
    `"script-src js.stripe.com; connect-src api.stripe.com; object-src 'none'; base-uri 'self'"`,
  );
});
