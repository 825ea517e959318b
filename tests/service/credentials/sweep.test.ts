import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { inspect } from 'node:util';
import type * as pulumi from '@pulumi/pulumi';
import { provider as cspPolicy } from '../../../provider/dynamic/runtime/csp-policy';
import { provider as customHostname } from '../../../provider/dynamic/runtime/custom-hostname';
import { provider as healthNotification } from '../../../provider/dynamic/runtime/health-notification';
import { provider as pageSecuritySetting } from '../../../provider/dynamic/runtime/page-security-setting';
import { provider as poolNotificationMigration } from '../../../provider/dynamic/runtime/pool-notification-migration';
import { listPools, listScripts, maliciousScripts } from '../../../provider';
import { resolveSettings } from '../../../provider/client';
import {
  APIConnectionError,
  AuthenticationError,
  BadRequestError,
  EdgeGuardError,
  PermissionDeniedError,
} from '../../../provider/client/errors';
import { createPolicy } from '../../../provider/client/page-security';
import { dynamicContext } from '../../../provider/dynamic/context';
import { ResourceStateError } from '../../../provider/runtime/contract';
import { SettingsError } from '../../../provider/settings';
import { ACCOUNT_ID, startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';

/**
 * The credentials sweep: run operations that fail in every way a request can fail (401, 403 of
 * both kinds, 400, 409, a refused connection, bad settings) and operations that succeed (every
 * resource's create, read, update and delete, a create whose response is lost, the read helpers),
 * with a token, with e-mail + key, and keep everything they produced: each error's message, stack,
 * JSON form and full inspection (causes included), every result, everything written to stdout,
 * stderr and the console, the emulator's request log and state, and every file of its data
 * directory. No credential may appear in any of it in plain text (nor base64- or URL-encoded).
 * The engine's side (state, preview and up output) is swept by the engine tests (tests/engine/).
 */

const TOKEN = 'sweep-token-d41c9a0e77b2';
const SCOPED_TOKEN = 'sweep-scoped-token-5b8e13f6';
const BAD_TOKEN = 'sweep-bad-token-90c2aa7d';
const EMAIL = 'sweep-ops@example.com';
const KEY = 'sweep-api-key-3f6e0b91c4';
const SECRETS = { TOKEN, SCOPED_TOKEN, BAD_TOKEN, KEY };
const OTHER_ZONE = 'c0000000000000000000000000000002';
const Z = ZONE_ID;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-sweep-'));
let emu: TestEmulator;
let closedPort: number;

/** Everything the operations produced, labelled by where it came from. */
const produced: Array<{ where: string; text: string }> = [];
/** What each operation did: `ok`, or the class of error it threw. */
const outcomes: Record<string, string> = {};
const savedEnv: Record<string, string | undefined> = {};

function keep(where: string, value: unknown): void {
  produced.push({ where, text: typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)) });
}

function keepError(where: string, error: unknown): void {
  const err = error as Error;
  keep(`${where}: message`, err.message);
  keep(`${where}: stack`, err.stack ?? '');
  keep(`${where}: JSON`, JSON.stringify(error));
  keep(`${where}: inspect`, inspect(error, { depth: 20, showHidden: true }));
  keep(`${where}: String`, String(error));
}

/** Writes to stdout and stderr and calls of the console while `run` runs, kept and not shown. */
async function capturingOutput<T>(run: () => Promise<T>): Promise<T> {
  const spies = [
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      keep('stdout', Buffer.from(chunk as never).toString());
      return true;
    }),
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      keep('stderr', Buffer.from(chunk as never).toString());
      return true;
    }),
    ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
      jest
        .spyOn(console, level)
        .mockImplementation((...args: unknown[]) =>
          keep(`console.${level}`, args.map((a) => inspect(a, { depth: 20 })).join(' ')),
        ),
    ),
  ];
  try {
    return await run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** Runs one operation, keeping its result or its error, and records its outcome. */
async function operation(name: string, run: () => Promise<unknown>): Promise<void> {
  await capturingOutput(async () => {
    try {
      const result = await run();
      keep(`${name}: result`, result ?? null);
      outcomes[name] = 'ok';
    } catch (error) {
      keepError(name, error);
      outcomes[name] = (error as Error).name;
    }
  });
}

async function configure(provider: pulumi.dynamic.ResourceProvider, settings: Record<string, string>): Promise<void> {
  const config = Object.fromEntries(Object.entries(settings).map(([key, value]) => [`edgeguard:${key}`, value]));
  await provider.configure!({
    config: { get: (key: string) => config[key], require: (key: string) => config[key]! },
  });
}

async function configureAll(settings: Record<string, string>): Promise<void> {
  for (const provider of [
    cspPolicy,
    customHostname,
    healthNotification,
    pageSecuritySetting,
    poolNotificationMigration,
  ])
    await configure(provider, settings);
}

const withToken = () => ({ baseUrl: emu.baseUrl, apiToken: TOKEN });
const cspInputs = {
  zoneId: Z,
  description: 'Sweep',
  action: 'log',
  expression: 'http.host eq "shop.example.com"',
  value: "script-src 'self' js.stripe.com",
  enabled: true,
};
const hostnameInputs = (hostname: string) => ({
  zoneId: Z,
  hostname,
  ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
  branding: false,
  waitForActive: false,
  waitTimeoutSeconds: 300,
});

beforeAll(async () => {
  for (const name of Object.keys(process.env).filter((key) => key.startsWith('EDGEGUARD_'))) {
    savedEnv[name] = process.env[name];
    delete process.env[name];
  }
  emu = await startTestEmulator({ dataDir, tokens: [TOKEN], email: EMAIL, key: KEY });
  const seeded = await emu.control('POST', 'seed', {
    zones: [{ id: OTHER_ZONE, name: 'other.example', account_id: ACCOUNT_ID }],
    tokens: [{ value: SCOPED_TOKEN, zones: [OTHER_ZONE] }],
    pools: [
      { account_id: ACCOUNT_ID, name: 'eu-west', notification_email: 'legacy-eu@example.com' },
      { account_id: ACCOUNT_ID, name: 'us-east', notification_email: 'legacy-us@example.com' },
    ],
    scripts: [{ zone_id: Z, url: 'https://cdn.bad.example/x.js', js_integrity_score: 3 }],
  });
  expect(seeded.status).toBe(200);
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closedPort = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterAll(async () => {
  Object.assign(process.env, savedEnv);
  await emu?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('operations that fail: each fails as expected, and its error is kept', async () => {
  await configureAll({ baseUrl: emu.baseUrl, apiToken: BAD_TOKEN });
  await operation('401: a bad token', () => pageSecuritySetting.create({ zoneId: Z, enabled: true }));
  await operation('401: a bad token (read helper)', async () => {
    for await (const script of listScripts(Z, {}, { baseUrl: emu.baseUrl, apiToken: BAD_TOKEN }))
      keep('script', script);
  });

  await configureAll({ baseUrl: emu.baseUrl, apiEmail: EMAIL, apiKey: KEY });
  await operation('403: e-mail + key for page security', () => cspPolicy.create(cspInputs));

  await configureAll({ baseUrl: emu.baseUrl, apiToken: SCOPED_TOKEN });
  await operation('403: a token scoped to another zone', () =>
    customHostname.create(hostnameInputs('scoped.customer.example')),
  );

  await configureAll(withToken());
  await operation('400: a malformed id, with the token', () => customHostname.read('not-an-id', { zoneId: Z }));
  await operation('inputs check would refuse, handed to create anyway', () =>
    cspPolicy.create({ ...cspInputs, value: "script-src 'self' http://" }),
  );
  await operation('400: a value check would refuse, sent through the client', () =>
    createPolicy(dynamicContext().client, Z, {
      description: '',
      action: 'log',
      expression: cspInputs.expression,
      enabled: 'true',
      value: "script-src 'self' http://",
    }),
  );
  await operation('409: a hostname that exists already', async () => {
    const taken = await emu.api('POST', `zones/${Z}/custom_hostnames`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      body: { hostname: 'taken.customer.example', ssl: { method: 'txt', type: 'dv', certificate_authority: '' } },
    });
    expect(taken.status).toBe(200);
    return customHostname.create(hostnameInputs('taken.customer.example'));
  });

  await configureAll({ baseUrl: `http://127.0.0.1:${closedPort}/client/v4`, apiToken: TOKEN });
  await operation('connection refused, with the token', () =>
    healthNotification.create({ accountId: ACCOUNT_ID, name: 'n', poolIds: ['b'.repeat(32)] }),
  );

  await configureAll({ baseUrl: 'ftp://127.0.0.1/client/v4', apiToken: TOKEN });
  await operation('SettingsError: a bad address, with the token', () =>
    pageSecuritySetting.create({ zoneId: Z, enabled: true }),
  );
  await configureAll({ baseUrl: emu.baseUrl, apiKey: KEY });
  await operation('SettingsError: a key without its e-mail', () =>
    poolNotificationMigration.create({ accountId: ACCOUNT_ID, perPage: 1000, maxRounds: 3 }),
  );
  await operation('SettingsError: resolveSettings with a key and a bad vendor', async () =>
    resolveSettings({
      explicit: { baseUrl: emu.baseUrl, apiToken: TOKEN, apiKey: KEY, apiEmail: EMAIL, vendor: 'Not A Vendor' },
      env: {},
    }),
  );

  expect(outcomes).toEqual({
    '401: a bad token': AuthenticationError.name,
    '401: a bad token (read helper)': AuthenticationError.name,
    '403: e-mail + key for page security': PermissionDeniedError.name,
    '403: a token scoped to another zone': PermissionDeniedError.name,
    '400: a malformed id, with the token': BadRequestError.name,
    'inputs check would refuse, handed to create anyway': ResourceStateError.name,
    '400: a value check would refuse, sent through the client': BadRequestError.name,
    '409: a hostname that exists already': EdgeGuardError.name,
    'connection refused, with the token': APIConnectionError.name,
    'SettingsError: a bad address, with the token': SettingsError.name,
    'SettingsError: a key without its e-mail': SettingsError.name,
    'SettingsError: resolveSettings with a key and a bad vendor': SettingsError.name,
  });
}, 120_000);

test('operations that succeed: every resource through create, read, update and delete, a lost create response, and the read helpers', async () => {
  const before = Object.keys(outcomes).length;
  await configureAll(withToken());
  await operation('page security: create, read, update, delete', async () => {
    const created = await pageSecuritySetting.create({ zoneId: Z, enabled: true });
    const read = await pageSecuritySetting.read(created.id, created.outs);
    const updated = await pageSecuritySetting.update(created.id, created.outs, { zoneId: Z, enabled: false });
    await pageSecuritySetting.delete(created.id, updated.outs);
    return { created, read, updated };
  });
  await operation('CSP policy: create, read, update, delete', async () => {
    const created = await cspPolicy.create(cspInputs);
    const read = await cspPolicy.read(created.id, created.outs);
    const updated = await cspPolicy.update(created.id, created.outs, { ...cspInputs, action: 'allow' });
    await cspPolicy.delete(created.id, updated.outs);
    return { created, read, updated };
  });
  await operation('custom hostname: a create whose response is lost, then read and delete', async () => {
    // Every create's response is lost; the client must find the hostname rather than post again.
    expect(
      (await emu.control('POST', 'faults', { reset_rate: 1, methods: ['POST'], paths: ['zones/*/custom_hostnames'] }))
        .status,
    ).toBe(200);
    try {
      const created = await customHostname.create(hostnameInputs('lost.customer.example'));
      const read = await customHostname.read(created.id, created.outs);
      await customHostname.delete(created.id, created.outs);
      return { created, read };
    } finally {
      await emu.control('POST', 'faults', {});
    }
  });
  await operation('health notification: create, read, update, delete', async () => {
    const pools = await listPools(ACCOUNT_ID, { baseUrl: emu.baseUrl, apiToken: TOKEN });
    const inputs = {
      accountId: ACCOUNT_ID,
      name: 'Sweep health',
      poolIds: pools.map((p) => p.id),
      emails: ['noc@example.com'],
    };
    const checked = (await healthNotification.check({}, inputs)).inputs;
    const created = await healthNotification.create(checked);
    const read = await healthNotification.read(created.id, created.outs);
    const updated = await healthNotification.update(created.id, created.outs, {
      ...checked,
      newHealth: ['Unhealthy'],
    });
    await healthNotification.delete(created.id, updated.outs);
    return { pools, created, read, updated };
  });
  await configureAll({ baseUrl: emu.baseUrl, apiEmail: EMAIL, apiKey: KEY });
  await operation('pool migration with e-mail + key: create and read', async () => {
    const created = await poolNotificationMigration.create({ accountId: ACCOUNT_ID, perPage: 1000, maxRounds: 3 });
    const read = await poolNotificationMigration.read(created.id, created.outs);
    return { created, read };
  });
  await operation('read helpers with explicit settings', async () =>
    maliciousScripts(Z, {}, { baseUrl: emu.baseUrl, apiToken: TOKEN }),
  );

  const succeeded = Object.entries(outcomes).slice(before);
  expect(succeeded).toEqual(succeeded.map(([name]) => [name, 'ok']));
  expect(succeeded).toHaveLength(6);
  // The lost response happened, and was recovered without a second hostname.
  const log = await emu.requests(0);
  expect(
    log.filter((r) => r.method === 'POST' && r.path.endsWith('/custom_hostnames') && r.status === null),
  ).toHaveLength(1);
}, 120_000);

test('no credential appears in anything the operations produced, the request log, the state or the data directory', async () => {
  keep('emulator request log', await emu.requests(0));
  keep('emulator state', (await emu.control('GET', 'state')).body.result);
  // The data directory while the emulator runs (the journal of every write) and after a clean
  // stop (the snapshot the journal is folded into).
  const dataFiles = () =>
    fs.readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const keepDataFiles = (when: string) => {
    const files = dataFiles();
    for (const file of files)
      keep(`data dir ${when}: ${file.name}`, fs.readFileSync(path.join(file.parentPath, file.name), 'latin1'));
    return files.map((file) => file.name);
  };
  expect(keepDataFiles('running')).toEqual(expect.arrayContaining(['journal.log']));
  await emu.close();
  expect(keepDataFiles('stopped')).toEqual(expect.arrayContaining(['snapshot.json']));
  const files = produced.filter((p) => p.where.startsWith('data dir'));

  // What was searched is real: errors from every failing operation, the log, the data directory,
  // which holds the seeded token as its SHA-256 (so the files were read, and hold token-derived data).
  expect(produced.filter((p) => p.where.endsWith(': message'))).toHaveLength(12);
  const dataDirText = produced
    .filter((p) => p.where.startsWith('data dir'))
    .map((p) => p.text)
    .join('\n');
  expect(dataDirText).toContain(createHash('sha256').update(SCOPED_TOKEN).digest('hex'));
  expect(dataDirText).toContain('lost.customer.example');
  expect(produced.find((p) => p.where === 'emulator request log')!.text).toContain('"credential":"key"');

  const forms = (secret: string) => [
    secret,
    Buffer.from(secret).toString('base64'),
    encodeURIComponent(secret),
    Buffer.from(secret).toString('hex'),
  ];
  const leaks = Object.entries(SECRETS).flatMap(([name, secret]) =>
    produced.filter((p) => forms(secret).some((form) => p.text.includes(form))).map((p) => `${name} in ${p.where}`),
  );
  process.stdout.write(
    `credentials sweep: ${Object.keys(outcomes).length} operations, ${produced.length} texts searched (${produced.reduce((n, p) => n + p.text.length, 0)} characters), ${files.length} data files\n`,
  );
  expect(leaks).toEqual([]);
}, 60_000);
