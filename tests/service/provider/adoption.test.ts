import { randomBytes } from 'node:crypto';
import type * as pulumi from '@pulumi/pulumi';
import { AdoptionError } from '../../../provider/runtime/adopt';
import { provider as cspPolicy } from '../../../provider/dynamic/runtime/csp-policy';
import { provider as customHostname } from '../../../provider/dynamic/runtime/custom-hostname';
import { provider as healthNotification } from '../../../provider/dynamic/runtime/health-notification';
import { ACCOUNT_ID, startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { configureProvider } from '../../helpers/provider';

/**
 * Adoption (`adoptId`) of each resource that can adopt, through its provider against the emulator:
 * an object as declared is taken over with no write at all, one that differs with exactly one
 * write, and an id of another zone or account, or no object, fails naming what to change and
 * writes nothing. Every count comes from the emulator's request log. The line the engine shows
 * (the provider's stdout) is checked too, and that `adoptId` is no change once created.
 */

const OTHER_ACCOUNT = 'a0000000000000000000000000000002';
const hexId = () => randomBytes(16).toString('hex');
const providers = {
  csp: cspPolicy as Required<pulumi.dynamic.ResourceProvider>,
  hostname: customHostname as Required<pulumi.dynamic.ResourceProvider>,
  notification: healthNotification as Required<pulumi.dynamic.ResourceProvider>,
};

let emu: TestEmulator;
let zoneSeq = 0;
let poolId: string;
let otherPoolId: string;
/** What the provider printed to stdout during the test: the lines the engine shows. */
let printed: string[];

beforeAll(async () => {
  emu = await startTestEmulator();
  await configureProvider(emu);
  const seeded = await emu.control('POST', 'seed', {
    accounts: [{ id: OTHER_ACCOUNT, name: 'Other' }],
    pools: [
      { account_id: ACCOUNT_ID, name: 'eu-west' },
      { account_id: OTHER_ACCOUNT, name: 'us-east' },
    ],
  });
  expect(seeded.status).toBe(200);
  poolId = (await emu.api('GET', `accounts/${ACCOUNT_ID}/load_balancers/pools`)).body.result[0].id;
  otherPoolId = (await emu.api('GET', `accounts/${OTHER_ACCOUNT}/load_balancers/pools`)).body.result[0].id;
});
afterAll(async () => emu.close());

beforeEach(() => {
  printed = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    return true;
  });
});
afterEach(() => jest.restoreAllMocks());

/** A zone of its own for a test. */
async function freshZone(): Promise<{ id: string; name: string }> {
  zoneSeq += 1;
  const zone = { id: `e${zoneSeq.toString(16).padStart(31, '0')}`, name: `adopt${zoneSeq}.example.com` };
  expect((await emu.control('POST', 'seed', { zones: [{ ...zone, account_id: ACCOUNT_ID }] })).status).toBe(200);
  return zone;
}

/** `METHOD path status` of the writes after `mark`. */
async function writes(mark: number): Promise<string[]> {
  return (await emu.writesSince(mark)).map((r) => `${r.method} ${r.path.replace('/client/v4/', '')} ${r.status}`);
}

/** Checks `news` as the engine does, then creates with the checked inputs. */
async function create(
  provider: Required<pulumi.dynamic.ResourceProvider>,
  news: Record<string, unknown>,
): Promise<pulumi.dynamic.CreateResult> {
  const checked = await provider.check({}, news);
  expect(checked.failures).toBeUndefined();
  return provider.create(checked.inputs);
}

async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const reply = await emu.api(method, path, body === undefined ? {} : { body });
  expect(reply.status).toBe(200);
  return reply.body.result;
}

describe('CspPolicy', () => {
  const declared = (zoneId: string, adoptId: string) => ({
    zoneId,
    adoptId,
    description: 'Shop scripts',
    action: 'log',
    expression: 'http.host eq "shop.example.com"',
    value: "script-src 'self' js.stripe.com",
  });
  const existing = (zoneId: string) =>
    ok('POST', `zones/${zoneId}/page_security/policies`, {
      description: 'Shop scripts',
      action: 'log',
      expression: 'http.host eq shop.example.com',
      enabled: 'true',
      value: "script-src js.stripe.com 'self'",
    });

  test('a policy as declared (the same meaning, written differently) is adopted with no write', async () => {
    const zone = await freshZone();
    const policy = await existing(zone.id);
    const mark = emu.mark();
    const created = await create(providers.csp, declared(zone.id, policy.id));
    expect(await writes(mark)).toEqual([]);
    expect(created).toEqual({
      id: policy.id,
      outs: {
        policyId: policy.id,
        zoneId: zone.id,
        description: 'Shop scripts',
        action: 'log',
        expression: 'http.host eq shop.example.com',
        value: "script-src js.stripe.com 'self'",
        enabled: true,
      },
    });
    expect(printed).toEqual([
      `CspPolicy: adopted CSP policy ${policy.id} ("Shop scripts") in zone ${zone.id}, not created; it was as declared, nothing written\n`,
    ]);
  });

  test('a policy that differs is adopted with exactly one PUT of the declared state', async () => {
    const zone = await freshZone();
    const policy = await existing(zone.id);
    const mark = emu.mark();
    const created = await create(providers.csp, { ...declared(zone.id, policy.id), action: 'allow', enabled: false });
    expect(await writes(mark)).toEqual([`PUT zones/${zone.id}/page_security/policies/${policy.id} 200`]);
    expect(created.id).toBe(policy.id);
    expect(created.outs).toMatchObject({ action: 'allow', enabled: false });
    expect(await ok('GET', `zones/${zone.id}/page_security/policies/${policy.id}`)).toMatchObject({
      action: 'allow',
      enabled: 'false',
    });
    expect(printed).toEqual([
      `CspPolicy: adopted CSP policy ${policy.id} ("Shop scripts") in zone ${zone.id}, not created; updated action, enabled to the declared value\n`,
    ]);
    expect(await ok('GET', `zones/${zone.id}/page_security/policies`)).toHaveLength(1);
  });

  test('a policy of another zone is not adopted: the create fails naming adoptId and zoneId, nothing written', async () => {
    const zone = await freshZone();
    const other = await freshZone();
    const policy = await existing(other.id);
    const mark = emu.mark();
    const failure = create(providers.csp, declared(zone.id, policy.id));
    await expect(failure).rejects.toThrow(AdoptionError);
    await expect(failure).rejects.toThrow(
      `CspPolicy cannot adopt CSP policy ${policy.id}: zone ${zone.id} has no CSP policy with that id (it does not exist, or it belongs to another zone: ` +
        'the service shows an object only under its own zone). Check adoptId and zoneId, or leave adoptId out to create a new CSP policy. Nothing was written.',
    );
    expect(await writes(mark)).toEqual([]);
    expect(await ok('GET', `zones/${zone.id}/page_security/policies`)).toEqual([]);
    expect(printed).toEqual([]);
  });

  test('an id that exists nowhere is not adopted, and nothing is written', async () => {
    const zone = await freshZone();
    const unknown = hexId();
    const mark = emu.mark();
    await expect(create(providers.csp, declared(zone.id, unknown))).rejects.toThrow(
      `CspPolicy cannot adopt CSP policy ${unknown}: zone ${zone.id} has no CSP policy with that id`,
    );
    expect(await writes(mark)).toEqual([]);
  });

  test('check takes adoptId as an id (any case, stored lower case) and refuses anything else', async () => {
    const zone = await freshZone();
    const id = hexId();
    await expect(providers.csp.check({}, declared(zone.id, id.toUpperCase()))).resolves.toEqual({
      inputs: { ...declared(zone.id, id), enabled: true },
    });
    await expect(providers.csp.check({}, declared(zone.id, 'policy-1'))).resolves.toMatchObject({
      failures: [
        {
          property: 'adoptId',
          reason: 'must be the id of the existing CSP policy to adopt: 32 hexadecimal characters (got "policy-1")',
        },
      ],
    });
  });

  test('adoptId set, changed or removed after creation is no change', async () => {
    const zone = await freshZone();
    const policy = await existing(zone.id);
    const { id, outs } = await create(providers.csp, declared(zone.id, policy.id));
    for (const adoptId of [policy.id, hexId(), undefined]) {
      const news = (await providers.csp.check({}, { ...declared(zone.id, policy.id), adoptId })).inputs;
      await expect(providers.csp.diff(id, outs, news)).resolves.toEqual({ changes: false, replaces: [] });
    }
  });
});

describe('CustomHostname', () => {
  const declared = (zoneId: string, adoptId: string, ssl: Record<string, string> = { method: 'txt', type: 'dv' }) => ({
    zoneId,
    adoptId,
    hostname: 'shop.customer.net',
    ssl,
  });
  const existing = (zoneId: string, hostname = 'shop.customer.net', ca = '') =>
    ok('POST', `zones/${zoneId}/custom_hostnames`, {
      hostname,
      ssl: { method: 'txt', type: 'dv', certificate_authority: ca },
    });

  test('an active hostname as declared is adopted with no write, keeping its ownership token and status', async () => {
    const zone = await freshZone();
    const record = await existing(zone.id);
    await emu.control('POST', 'dns', {
      hostname: record.hostname,
      records: [{ type: 'TXT', name: record.ownership_verification.name, value: record.ownership_verification.value }],
    });
    const active = await ok('GET', `zones/${zone.id}/custom_hostnames/${record.id}`);
    expect(active.status).toBe('active');
    const mark = emu.mark();
    const created = await create(providers.hostname, declared(zone.id, record.id));
    expect(await writes(mark)).toEqual([]);
    expect(created.id).toBe(record.id);
    expect(created.outs).toMatchObject({
      customHostnameId: record.id,
      hostname: 'shop.customer.net',
      status: 'active',
      ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
      certificateAuthorityInUse: 'google',
      ownershipRecordName: record.ownership_verification.name,
      ownershipRecordValue: record.ownership_verification.value,
      createdAt: record.created_at,
    });
    expect(created.outs).not.toHaveProperty('adoptId');
    expect(await ok('GET', `zones/${zone.id}/custom_hostnames/${record.id}`)).toEqual(active);
    expect(printed).toEqual([
      `CustomHostname: adopted custom hostname ${record.id} ("shop.customer.net", active) in zone ${zone.id}, not created; it was as declared, nothing written\n`,
    ]);
  });

  test('the certificate authority in use matches a declared "" and the same name, and no other', async () => {
    const zone = await freshZone();
    const record = await existing(zone.id, 'shop.customer.net', 'lets_encrypt');
    for (const certificateAuthority of ['', 'lets_encrypt']) {
      const mark = emu.mark();
      await create(
        providers.hostname,
        declared(zone.id, record.id, { method: 'txt', type: 'dv', certificateAuthority }),
      );
      expect(await writes(mark)).toEqual([]);
    }
    const mark = emu.mark();
    const created = await create(
      providers.hostname,
      declared(zone.id, record.id, { method: 'txt', type: 'dv', certificateAuthority: 'google' }),
    );
    expect(await writes(mark)).toEqual([`PATCH zones/${zone.id}/custom_hostnames/${record.id} 200`]);
    expect(created.outs.certificateAuthorityInUse).toBe('google');
  });

  test('a hostname whose ssl differs is adopted with exactly one PATCH, keeping its ownership token', async () => {
    const zone = await freshZone();
    const record = await existing(zone.id);
    const mark = emu.mark();
    const created = await create(providers.hostname, declared(zone.id, record.id, { method: 'http', type: 'dv' }));
    expect(await writes(mark)).toEqual([`PATCH zones/${zone.id}/custom_hostnames/${record.id} 200`]);
    expect(created.id).toBe(record.id);
    expect(created.outs).toMatchObject({
      ssl: { method: 'http', type: 'dv', certificateAuthority: '' },
      ownershipRecordValue: record.ownership_verification.value,
    });
    expect((await ok('GET', `zones/${zone.id}/custom_hostnames/${record.id}`)).ssl.method).toBe('http');
    expect(printed).toEqual([
      `CustomHostname: adopted custom hostname ${record.id} ("shop.customer.net", pending) in zone ${zone.id}, not created; updated ssl to the declared value\n`,
    ]);
  });

  test('a hostname or branding other than declared cannot change in place: the create fails saying what to declare, nothing written', async () => {
    const zone = await freshZone();
    const record = await existing(zone.id, 'other.customer.net');
    const mark = emu.mark();
    await expect(
      create(providers.hostname, { ...declared(zone.id, record.id, { method: 'http', type: 'dv' }), branding: true }),
    ).rejects.toThrow(
      `CustomHostname cannot adopt custom hostname ${record.id} ("other.customer.net", pending) in zone ${zone.id}: ` +
        'its hostname is "other.customer.net", not "shop.customer.net", and a hostname cannot change in place: declare hostname "other.customer.net" to adopt it; ' +
        'its branding is false, not true, and branding cannot change in place: declare branding: false to adopt it. Nothing was written. ' +
        'To create a new custom hostname instead (a replacement is a create too), leave adoptId out.',
    );
    expect(await writes(mark)).toEqual([]);
  });

  test('a hostname of another zone, or an unknown id, is not adopted, and nothing is written', async () => {
    const zone = await freshZone();
    const other = await freshZone();
    const record = await existing(other.id);
    for (const id of [record.id, hexId()]) {
      const mark = emu.mark();
      const failure = create(providers.hostname, declared(zone.id, id));
      await expect(failure).rejects.toThrow(AdoptionError);
      await expect(failure).rejects.toThrow(
        `CustomHostname cannot adopt custom hostname ${id}: zone ${zone.id} has no custom hostname with that id`,
      );
      expect(await writes(mark)).toEqual([]);
    }
    expect(await ok('GET', `zones/${zone.id}/custom_hostnames`)).toEqual([]);
    expect(printed).toEqual([]);
  });

  test('a hostname that cannot work yet is adopted as a partial failure: kept in the state, nothing written', async () => {
    const zone = await freshZone();
    const record = await existing(zone.id, 'shop.customer.net', 'google');
    const dns = await emu.control('POST', 'dns', {
      hostname: record.hostname,
      records: [
        { type: 'CNAME', value: `edge.${zone.name}` },
        { type: 'CAA', value: '0 issue "letsencrypt.org"' },
      ],
    });
    expect(dns.status).toBe(200);
    const mark = emu.mark();
    const failure = await create(providers.hostname, declared(zone.id, record.id)).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      id: record.id,
      properties: { customHostnameId: record.id, status: 'caa_error' },
    });
    expect((failure as Error).message).toContain('has status caa_error');
    expect(await writes(mark)).toEqual([]);
  });

  test('adoptId changed or removed after creation is no change', async () => {
    const zone = await freshZone();
    const record = await existing(zone.id);
    const { id, outs } = await create(providers.hostname, declared(zone.id, record.id));
    for (const adoptId of [hexId(), undefined]) {
      const news = (await providers.hostname.check({}, { ...declared(zone.id, record.id), adoptId })).inputs;
      await expect(providers.hostname.diff(id, outs, news)).resolves.toEqual({
        changes: false,
        replaces: [],
        deleteBeforeReplace: false,
      });
    }
  });

  test('a create refused because the hostname exists names its id and says to set adoptId to it', async () => {
    const zone = await freshZone();
    const record = await existing(zone.id, 'taken.customer.net');
    const mark = emu.mark();
    const failure = create(providers.hostname, {
      zoneId: zone.id,
      hostname: 'taken.customer.net',
      ssl: { method: 'txt', type: 'dv' },
    });
    await expect(failure).rejects.toThrow(
      `custom hostname "taken.customer.net" already exists in zone ${zone.id} as custom hostname ${record.id}, which this stack does not manage. ` +
        `To take it over as it is (it keeps its ownership token and status, and nothing is created), set adoptId: "${record.id}" ` +
        "in this CustomHostname's arguments and run pulumi up again. (create custom hostname (POST",
    );
    expect(await writes(mark)).toEqual([`POST zones/${zone.id}/custom_hostnames 409`]);
    // What the message says works: the same declaration with adoptId adopts it, writing nothing.
    const again = emu.mark();
    const adopted = await create(providers.hostname, {
      zoneId: zone.id,
      hostname: 'taken.customer.net',
      ssl: { method: 'txt', type: 'dv' },
      adoptId: record.id,
    });
    expect(adopted.id).toBe(record.id);
    expect(await writes(again)).toEqual([]);
  });
});

describe('HealthNotification', () => {
  const declared = (adoptId: string) => ({
    accountId: ACCOUNT_ID,
    adoptId,
    name: 'Pool health',
    poolIds: [poolId],
    emails: ['noc@example.com'],
  });
  const existing = async (accountId = ACCOUNT_ID, pool = poolId): Promise<string> =>
    (
      await ok('POST', `accounts/${accountId}/alerting/v3/policies`, {
        name: 'Pool health',
        enabled: true,
        alert_type: 'load_balancing_health_alert',
        mechanisms: { email: [{ id: 'noc@example.com' }] },
        filters: { pool_id: [pool] },
      })
    ).id;

  test('a policy as declared (filters left out mean all) is adopted with no write', async () => {
    const policyId = await existing();
    const before = await ok('GET', `accounts/${ACCOUNT_ID}/alerting/v3/policies/${policyId}`);
    const mark = emu.mark();
    const created = await create(providers.notification, declared(policyId));
    expect(await writes(mark)).toEqual([]);
    expect(created).toEqual({
      id: policyId,
      outs: {
        accountId: ACCOUNT_ID,
        name: 'Pool health',
        description: '',
        enabled: true,
        poolIds: [poolId],
        newHealth: ['Healthy', 'Unhealthy'],
        eventSource: ['origin', 'pool'],
        emails: ['noc@example.com'],
        webhookIds: [],
        notificationId: policyId,
        created: before.created,
        modified: before.modified,
      },
    });
    expect(printed).toEqual([
      `HealthNotification: adopted notification policy ${policyId} ("Pool health") in account ${ACCOUNT_ID}, not created; it was as declared, nothing written\n`,
    ]);
  });

  test('a policy that differs is adopted with exactly one PUT of the declared state', async () => {
    const policyId = await existing();
    const mark = emu.mark();
    const created = await create(providers.notification, {
      ...declared(policyId),
      newHealth: ['Unhealthy'],
      emails: ['oncall@example.com'],
    });
    expect(await writes(mark)).toEqual([`PUT accounts/${ACCOUNT_ID}/alerting/v3/policies/${policyId} 200`]);
    expect(created.outs).toMatchObject({ newHealth: ['Unhealthy'], emails: ['oncall@example.com'] });
    const live = await ok('GET', `accounts/${ACCOUNT_ID}/alerting/v3/policies/${policyId}`);
    expect(live.filters.new_health).toEqual(['Unhealthy']);
    expect(printed).toEqual([
      `HealthNotification: adopted notification policy ${policyId} ("Pool health") in account ${ACCOUNT_ID}, not created; updated newHealth, emails to the declared value\n`,
    ]);
  });

  test('a policy of another account, or an unknown id, is not adopted, and nothing is written', async () => {
    const otherId = await existing(OTHER_ACCOUNT, otherPoolId);
    for (const id of [otherId, hexId()]) {
      const mark = emu.mark();
      const failure = create(providers.notification, declared(id));
      await expect(failure).rejects.toThrow(AdoptionError);
      await expect(failure).rejects.toThrow(
        `HealthNotification cannot adopt notification policy ${id}: account ${ACCOUNT_ID} has no notification policy with that id ` +
          '(it does not exist, or it belongs to another account: the service shows an object only under its own account). ' +
          'Check adoptId and accountId, or leave adoptId out to create a new notification policy. Nothing was written.',
      );
      expect(await writes(mark)).toEqual([]);
    }
    expect(printed).toEqual([]);
  });

  test('adoptId changed or removed after creation is no change', async () => {
    const policyId = await existing();
    const { id, outs } = await create(providers.notification, declared(policyId));
    for (const adoptId of [hexId(), undefined]) {
      const news = (await providers.notification.check({}, { ...declared(policyId), adoptId })).inputs;
      await expect(providers.notification.diff(id, outs, news)).resolves.toEqual({ changes: false, replaces: [] });
    }
  });
});
