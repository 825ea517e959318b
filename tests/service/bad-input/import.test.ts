import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { runToEnd, type Finished } from '../../helpers/process';
import { REPO } from '../../helpers/repo';

/**
 * Bad input to `edgeguard-import` (the compiled bin, as a user runs it): a zone or account the
 * service does not know, credentials it refuses or that may not read page security, missing
 * settings, bad flags, and objects the program cannot declare. Each ends with the exit status the
 * help promises and a message naming what to change, writes no file unless the program is
 * complete or says what it left out, never echoes a credential, and writes nothing to the service.
 */

const BIN = path.join(REPO, 'dist', 'provider', 'cli', 'import.js');
const BAD_TOKEN = 'import-bad-token-5e0f1c2b';
const EMAIL = 'ops@example.com';
const KEY = 'import-api-key-77d0c3e1';
const UNKNOWN = 'c00000000000000000000000000000ff';

let emu: TestEmulator;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-import-'));
const out = path.join(dir, 'index.ts');

beforeAll(async () => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (npm test does)`);
  emu = await startTestEmulator({ email: EMAIL, key: KEY });
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await emu?.close();
});
beforeEach(() => fs.rmSync(out, { force: true }));

/** Runs the bin with only the `EDGEGUARD_*` variables given (none leak in from the shell). */
function run(
  args: string[],
  env: Record<string, string> = { EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: TEST_TOKEN },
): Promise<Finished> {
  return runToEnd(process.execPath, [BIN, ...args], { env });
}

interface Case {
  args: () => string[];
  env?: () => Record<string, string>;
  status: number;
  /** The first line of stderr. */
  message: RegExp;
}

const CASES: Record<string, Case> = {
  'a zone the service does not know': {
    args: () => ['--zone', UNKNOWN, '--out', out],
    status: 1,
    message: new RegExp(
      `^edgeguard-import: zone ${UNKNOWN} was not found: check --zone\\. \\(get page security settings \\(GET zones/${UNKNOWN}/page_security\\) failed: HTTP 404: \\[7003\\]`,
    ),
  },
  'an account the service does not know': {
    args: () => ['--zone', ZONE_ID, '--account', UNKNOWN.replace(/^c/, 'a'), '--out', out],
    status: 1,
    message:
      /^edgeguard-import: account a0{29}ff was not found: check --account\. \(list notification policies .* HTTP 404/,
  },
  'a token the service refuses': {
    args: () => ['--zone', ZONE_ID, '--out', out],
    env: () => ({ EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: BAD_TOKEN }),
    status: 1,
    message:
      /^edgeguard-import: the service refused the credentials: check --api-token \(or EDGEGUARD_API_TOKEN\), or the e-mail and API key\. \(.*HTTP 401: \[10000\]/,
  },
  'a refused token given as a flag wins over a good one in the environment': {
    args: () => ['--zone', ZONE_ID, '--out', out, '--api-token', BAD_TOKEN],
    status: 1,
    message: /^edgeguard-import: the service refused the credentials/,
  },
  'e-mail and key, which page security does not accept': {
    args: () => ['--zone', ZONE_ID, '--out', out],
    env: () => ({ EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_EMAIL: EMAIL, EDGEGUARD_API_KEY: KEY }),
    status: 1,
    message: new RegExp(
      `^edgeguard-import: the credentials may not read zone ${ZONE_ID} \\(page security needs an API token with access to the zone\\)\\. \\(.*HTTP 403: \\[9109\\] page security operations require an API token`,
    ),
  },
  'no service address anywhere': {
    args: () => ['--zone', ZONE_ID, '--out', out],
    env: () => ({ EDGEGUARD_API_TOKEN: TEST_TOKEN }),
    status: 1,
    message:
      /^edgeguard-import: no service address: set --base-url \(or EDGEGUARD_BASE_URL\), for example http:\/\/127\.0\.0\.1:8787\/client\/v4$/,
  },
  'a base address without the version segment': {
    args: () => ['--zone', ZONE_ID, '--out', out, '--base-url', emu.baseUrl.replace(/\/v4$/, '')],
    status: 1,
    message:
      /^edgeguard-import: --base-url \(or EDGEGUARD_BASE_URL\) ".*\/client" must end with the API version segment \/v4/,
  },
  'no --zone': {
    args: () => ['--account', ACCOUNT_ID, '--out', out],
    status: 2,
    message: /^edgeguard-import: --zone is required: the id of the zone to read$/,
  },
  'a zone name instead of its id': {
    args: () => ['--zone', 'example.com', '--out', out],
    status: 2,
    message: /^edgeguard-import: --zone must be the zone's id: 32 hexadecimal characters \(got "example\.com"\)$/,
  },
  'an unknown flag': {
    args: () => ['--zone', ZONE_ID, '--output', out],
    status: 2,
    message: /^edgeguard-import: Unknown option '--output'/,
  },
};

describe('refused: the exit status, a message naming what to change, no file, nothing written', () => {
  test.each(Object.entries(CASES))('%s', async (_name, { args, env, status, message }) => {
    const mark = emu.mark();
    const result = await run(args(), env?.());
    expect(result.stderr.split('\n')[0]).toMatch(message);
    expect(result.status).toBe(status);
    expect(result.stdout).toBe('');
    expect(fs.existsSync(out)).toBe(false);
    for (const secret of [BAD_TOKEN, TEST_TOKEN, KEY]) expect(result.stderr).not.toContain(secret);
    expect(await emu.writesSince(mark)).toEqual([]);
  });

  test('bad usage prints the usage after the message', async () => {
    const result = await run(['--zone', ZONE_ID, '--output', out]);
    expect(result.stderr).toContain('\nusage: edgeguard-import --zone ZONE_ID [--account ACCOUNT_ID] [--out FILE]\n');
  });
});

test('an object the program cannot declare: the program is written without it, with why in a comment; exit 3', async () => {
  // A hostname whose domain's CAA records forbid the certificate authority it uses: adopting it
  // would fail the step, so it is left out (with its declaration commented out).
  const created = await emu.api('POST', `zones/${ZONE_ID}/custom_hostnames`, {
    body: { hostname: 'caa.customer.net', ssl: { method: 'txt', type: 'dv', certificate_authority: 'google' } },
  });
  expect(created.status).toBe(200);
  const record = created.body.result;
  const dns = await emu.control('POST', 'dns', {
    hostname: 'caa.customer.net',
    records: [
      { type: 'CNAME', value: 'edge.example.com' },
      { type: 'CAA', value: '0 issue "letsencrypt.org"' },
    ],
  });
  expect(dns.status).toBe(200);
  const mark = emu.mark();
  const result = await run(['--zone', ZONE_ID, '--out', out]);
  expect(result.status).toBe(3);
  expect(result.stderr).toBe(
    `edgeguard-import: wrote ${out}: 1 PageSecuritySetting to adopt\n` +
      'edgeguard-import: 1 object is left out of the program (described in comments in it):\n' +
      `- custom hostname ${record.id} ("caa.customer.net"): its status is caa_error, so adopting it fails that step of pulumi up ` +
      "(it is recorded, and the next pulumi up restarts validation): the domain's CAA records do not permit the certificate authority in use, google. " +
      'Add a CAA record 0 issue "pki.goog" to the domain that holds the CAA records of caa.customer.net ' +
      '(or set ssl.certificateAuthority to a certificate authority those records permit), then run pulumi up again: the update restarts validation. ' +
      'The service reports: "CAA records for caa.customer.net do not permit google (pki.goog); add 0 issue \\"pki.goog\\" or request another certificate_authority"\n',
  );
  const program = fs.readFileSync(out, 'utf8');
  expect(program).toContain(`// Left out: custom hostname ${record.id}`);
  expect(program).toContain(`//   adoptId: "${record.id}",`);
  expect(program).not.toMatch(/^new edgeguard\.CustomHostname/m);
  expect(program).toMatch(/^new edgeguard\.PageSecuritySetting\("page-security", \{$/m);
  expect(await emu.writesSince(mark)).toEqual([]);
});
