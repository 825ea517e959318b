import * as pulumi from '@pulumi/pulumi';
import {
  CustomHostnameNotValidatedError,
  diffValidation,
  type CustomHostnameValidationInputs,
  type CustomHostnameValidationOutputs,
} from '../../../provider/runtime/custom-hostname-validation';
import { provider as runtime } from '../../../provider/dynamic/runtime/custom-hostname-validation';
import { ACCOUNT_ID, startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { validationInputs as inputs } from '../../helpers/inputs';
import { configureProvider } from '../../helpers/provider';
import { until } from '../../helpers/until';

/**
 * `CustomHostnameValidation`: every provider method against the emulator: a hostname that becomes
 * active while create waits (through a TXT record or a CNAME published meanwhile), caa_error fixed
 * by a CAA change, a held zone released, the timeout, and a hostname that moved found by read and
 * revalidated by update with one PATCH. The world (DNS, holds) is changed through the emulator's
 * control API once the request log shows the provider waiting, never after a guessed delay.
 * (Check, diff and the class alone: tests/unit/provider/custom-hostname-validation.test.ts.)
 */

const provider = runtime as Required<pulumi.dynamic.ResourceProvider>;
const SERIALIZED = 'exports.handler = () => ({})';

describe('against the emulator', () => {
  let emu: TestEmulator;
  /** The lines the runtime printed for the engine to show (its standard output) in the current test. */
  let progress: string[] = [];

  beforeAll(async () => {
    emu = await startTestEmulator();
    await configureProvider(emu);
  });
  afterAll(async () => emu.close());
  beforeEach(() => {
    progress = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      progress.push(...text.split('\n').filter((line) => line !== ''));
      return true;
    });
  });
  afterEach(() => jest.restoreAllMocks());

  let zoneSeq = 0;
  async function freshZone(): Promise<{ id: string; name: string }> {
    zoneSeq += 1;
    const zone = { id: `d${zoneSeq.toString(16).padStart(31, '0')}`, name: `saas${zoneSeq}.example.com` };
    expect((await emu.control('POST', 'seed', { zones: [{ ...zone, account_id: ACCOUNT_ID }] })).status).toBe(200);
    return zone;
  }

  interface Hostname {
    id: string;
    hostname: string;
    ownership_verification: { name: string; value: string };
  }

  /** A custom hostname made through the API, as its CustomHostname would have made it. */
  async function hostnameIn(zoneId: string, hostname: string): Promise<Hostname> {
    const made = await emu.api('POST', `zones/${zoneId}/custom_hostnames`, {
      body: { hostname, ssl: { method: 'txt', type: 'dv', certificate_authority: '' } },
    });
    expect(made.status).toBe(200);
    return made.body.result as Hostname;
  }

  async function publish(hostname: string, records: Array<{ type: string; name?: string; value: string }>) {
    expect((await emu.control('POST', 'dns', { hostname, records })).status).toBe(200);
  }

  /** The TXT record that proves ownership of `record`, published under its own name. */
  async function publishOwnership(record: Hostname): Promise<void> {
    const { name, value } = record.ownership_verification;
    await publish(name, [{ type: 'TXT', value }]);
  }

  /** `METHOD path status` of the API requests after `mark`, the path below the zone. */
  async function calls(mark: number): Promise<string[]> {
    return (await emu.requests(mark)).map(
      (r) => `${r.method} ${r.path.replace(/^\/client\/v4\/zones\/[0-9a-f]{32}\//, '')} ${r.status}`,
    );
  }

  /** Waits until the request log after `mark` holds `count` entries equal to `line`. */
  async function untilCalled(mark: number, line: string, count = 1): Promise<void> {
    await until(
      async () => (await calls(mark)).filter((entry) => entry === line).length >= count,
      20_000,
      async () => `no ${count} × "${line}" in the request log within 20 s: ${JSON.stringify(await calls(mark))}`,
      10,
    );
  }

  async function checked(news: Record<string, unknown>): Promise<CustomHostnameValidationInputs> {
    const result = await provider.check({}, news);
    expect(result.failures).toBeUndefined();
    return result.inputs as CustomHostnameValidationInputs;
  }

  async function create(news: Record<string, unknown>): Promise<{ id: string; outs: CustomHostnameValidationOutputs }> {
    const created = await provider.create({ ...(await checked(news)), __provider: SERIALIZED });
    return { id: created.id, outs: created.outs as CustomHostnameValidationOutputs };
  }

  /** What a create or update threw, which must be a partial failure. */
  async function notValidated(action: Promise<unknown>): Promise<CustomHostnameNotValidatedError> {
    const error = await action.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CustomHostnameNotValidatedError);
    return error as CustomHostnameNotValidatedError;
  }

  test('create waits until the TXT record published meanwhile makes the hostname active, printing its progress', async () => {
    const zone = await freshZone();
    const record = await hostnameIn(zone.id, 'txt.customer.net');
    const mark = emu.mark();
    const creating = create(inputs({ zoneId: zone.id, customHostnameId: record.id, timeoutSeconds: 30 }));
    // The first read found it pending and the second read is the wait's: now the record appears.
    await untilCalled(mark, `GET custom_hostnames/${record.id} 200`, 2);
    await publishOwnership(record);
    const { id, outs } = await creating;

    expect(id).toBe(record.id);
    expect(outs).toEqual({
      zoneId: zone.id,
      customHostnameId: record.id,
      timeoutSeconds: 30,
      hostname: 'txt.customer.net',
      status: 'active',
      sslStatus: 'active',
      certificateAuthorityInUse: 'google',
      verificationErrors: [],
    });
    const made = await calls(mark);
    expect(made.length).toBeGreaterThanOrEqual(3);
    expect(made).toEqual(Array<string>(made.length).fill(`GET custom_hostnames/${record.id} 200`));
    // One line when the wait starts, then one per read: how long it waited and what it read.
    expect(progress).toHaveLength(made.length);
    expect(progress[0]).toBe(
      'CustomHostnameValidation txt.customer.net: waiting up to 30 s for it to become active; now pending ("custom hostname does not CNAME to this zone.")',
    );
    for (const line of progress.slice(1, -1)) {
      expect(line).toMatch(
        /^CustomHostnameValidation txt\.customer\.net: pending \("custom hostname does not CNAME to this zone\."\) after \d+ s of at most 30 s$/,
      );
    }
    expect(progress.at(-1)).toMatch(
      /^CustomHostnameValidation txt\.customer\.net: active \(certificate active\) after \d+ s of at most 30 s$/,
    );
  });

  test('create waits until a CNAME into the zone, published meanwhile, makes the hostname active', async () => {
    const zone = await freshZone();
    const record = await hostnameIn(zone.id, 'cname.customer.net');
    const mark = emu.mark();
    const creating = create(inputs({ zoneId: zone.id, customHostnameId: record.id, timeoutSeconds: 30 }));
    await untilCalled(mark, `GET custom_hostnames/${record.id} 200`, 2);
    await publish('cname.customer.net', [{ type: 'CNAME', value: `edge.${zone.name}` }]);
    const { outs } = await creating;
    expect(outs.status).toBe('active');
    expect(await emu.writesSince(mark)).toEqual([]);
  });

  test('create of a hostname already active reads it once and prints nothing', async () => {
    const zone = await freshZone();
    const record = await hostnameIn(zone.id, 'ready.customer.net');
    await publishOwnership(record);
    const mark = emu.mark();
    const { outs } = await create(inputs({ zoneId: zone.id, customHostnameId: record.id }));
    expect(outs.status).toBe('active');
    expect(await calls(mark)).toEqual([`GET custom_hostnames/${record.id} 200`]);
    expect(progress).toEqual([]);
  });

  test('caa_error fails at once naming the CAA record to add; after the CAA change the next update succeeds with no edit', async () => {
    const zone = await freshZone();
    await publish('caa.customer.net', [{ type: 'CAA', value: '0 issue "digicert.com"' }]);
    const record = await hostnameIn(zone.id, 'shop.caa.customer.net');
    await publishOwnership(record);
    const news = await checked(inputs({ zoneId: zone.id, customHostnameId: record.id }));
    const mark = emu.mark();
    const error = await notValidated(provider.create({ ...news, __provider: SERIALIZED }));
    expect(await calls(mark)).toEqual([`GET custom_hostnames/${record.id} 200`]);
    expect(error.message).toBe(
      `custom hostname "shop.caa.customer.net" (${record.id} in zone ${zone.id}) has status caa_error: ` +
        "the domain's CAA records do not permit the certificate authority in use, google. " +
        'Add a CAA record 0 issue "pki.goog" to the domain that holds the CAA records of shop.caa.customer.net ' +
        "(or set the CustomHostname's ssl.certificateAuthority to a certificate authority those records permit), " +
        'then run pulumi up again: the update restarts validation. ' +
        'The service reports: "CAA records for caa.customer.net permit neither google (pki.goog) nor lets_encrypt (letsencrypt.org); add 0 issue \\"pki.goog\\" or 0 issue \\"letsencrypt.org\\""',
    );
    expect(error.id).toBe(record.id);
    expect(error.reasons).toEqual([error.message]);
    expect(error.properties).toEqual({
      ...news,
      hostname: 'shop.caa.customer.net',
      status: 'caa_error',
      sslStatus: 'caa_error',
      certificateAuthorityInUse: 'google',
      verificationErrors: [expect.stringContaining('permit neither google')],
      __provider: SERIALIZED,
    });
    expect(diffValidation(error.properties, news)).toEqual(['status']);

    // The owner adds the record the message names; the next `pulumi up` updates the validation.
    await publish('caa.customer.net', [
      { type: 'CAA', value: '0 issue "digicert.com"' },
      { type: 'CAA', value: '0 issue "pki.goog"' },
    ]);
    const retry = emu.mark();
    const updated = await provider.update(record.id, error.properties, { ...news, __provider: SERIALIZED });
    expect(updated.outs).toMatchObject({ status: 'active', sslStatus: 'active', certificateAuthorityInUse: 'google' });
    expect(await calls(retry)).toEqual([`GET custom_hostnames/${record.id} 200`]);
  });

  test('an update that still finds caa_error restarts validation once and fails again with the advice', async () => {
    const zone = await freshZone();
    await publish('still.customer.net', [{ type: 'CAA', value: '0 issue ";"' }]);
    const record = await hostnameIn(zone.id, 'still.customer.net');
    await publishOwnership(record);
    const news = await checked(inputs({ zoneId: zone.id, customHostnameId: record.id }));
    const first = await notValidated(provider.create(news));
    const mark = emu.mark();
    const again = await notValidated(provider.update(record.id, first.properties, news));
    expect(await calls(mark)).toEqual([
      `GET custom_hostnames/${record.id} 200`,
      `PATCH custom_hostnames/${record.id} 200`,
    ]);
    expect(again.message).toContain('has status caa_error');
    expect(again.message).toContain('Add a CAA record 0 issue "pki.goog"');
    expect(again.properties).toMatchObject({ status: 'caa_error' });
  });

  test('blocked fails saying the hold must be released; once released, the next update succeeds', async () => {
    const zone = await freshZone();
    const held = { id: 'b0000000000000000000000000000001', name: 'held.example.org' };
    expect((await emu.control('POST', 'seed', { zones: [{ ...held, account_id: ACCOUNT_ID }] })).status).toBe(200);
    expect((await emu.control('POST', `zones/${held.id}/hold`, { include_subdomains: true })).status).toBe(200);
    const record = await hostnameIn(zone.id, 'shop.held.example.org');
    await publishOwnership(record);
    const news = await checked(inputs({ zoneId: zone.id, customHostnameId: record.id }));
    const error = await notValidated(provider.create(news));
    expect(error.message).toBe(
      `custom hostname "shop.held.example.org" (${record.id} in zone ${zone.id}) has status blocked: ` +
        'it is associated with a zone on hold that also holds its subdomains. ' +
        'The owner of that zone must release the hold; then run pulumi up again to restart validation. ' +
        'The service reports: "shop.held.example.org is associated with a held zone (held.example.org); the zone owner must release the hold before the hostname can become active."',
    );
    expect(error.properties).toMatchObject({ status: 'blocked', sslStatus: 'pending_validation' });

    expect((await emu.control('DELETE', `zones/${held.id}/hold`)).status).toBe(200);
    const mark = emu.mark();
    const updated = await provider.update(record.id, error.properties, news);
    expect(updated.outs).toMatchObject({ status: 'active', sslStatus: 'active' });
    expect(await calls(mark)).toEqual([`GET custom_hostnames/${record.id} 200`]);
  });

  test('the timeout fails saying which record the service is missing, and keeps the validation in the state', async () => {
    const zone = await freshZone();
    const record = await hostnameIn(zone.id, 'late.customer.net');
    const started = Date.now();
    const error = await notValidated(
      provider.create({
        ...(await checked(inputs({ zoneId: zone.id, customHostnameId: record.id, timeoutSeconds: 2 }))),
        __provider: SERIALIZED,
      }),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    const { name, value } = record.ownership_verification;
    expect(error.message).toBe(
      `custom hostname "late.customer.net" (${record.id} in zone ${zone.id}) did not become active within 2 s (waited 2 s): its status is pending. ` +
        'The service reports: "custom hostname does not CNAME to this zone." ' +
        `To prove ownership, publish the TXT record ${name} with the value "${value}" ` +
        '(or a CNAME from late.customer.net to a hostname in the zone), then run pulumi up again to wait again (or raise timeoutSeconds).',
    );
    expect(error.properties).toMatchObject({ status: 'pending', timeoutSeconds: 2, __provider: SERIALIZED });
    expect(progress[0]).toBe(
      'CustomHostnameValidation late.customer.net: waiting up to 2 s for it to become active; now pending ("custom hostname does not CNAME to this zone.")',
    );
    expect(progress.at(-1)).toMatch(/: pending \(.*\) after 2 s of at most 2 s$/);
  });

  test('moved: read shows it, diff calls for an update, and the update revalidates it with one PATCH', async () => {
    const zone = await freshZone();
    const record = await hostnameIn(zone.id, 'moving.customer.net');
    await publishOwnership(record);
    const news = await checked(inputs({ zoneId: zone.id, customHostnameId: record.id }));
    const { id, outs } = await create(news);
    expect(outs.status).toBe('active');

    // The customer points the hostname at another provider: the service marks it moved.
    await publish('moving.customer.net', [{ type: 'CNAME', value: 'edge.other-provider.example' }]);
    let mark = emu.mark();
    const read = await provider.read(id, outs);
    expect(await calls(mark)).toEqual([`GET custom_hostnames/${id} 200`]);
    expect(read).toEqual({
      id,
      props: { ...outs, status: 'moved', verificationErrors: ['custom hostname does not CNAME to this zone.'] },
      inputs: news,
    });
    expect(diffValidation(read.props as CustomHostnameValidationOutputs, news)).toEqual(['status']);

    // Back into the zone: `moved` stays until an edit restarts validation (spec 3).
    await publish('moving.customer.net', []);
    expect((await emu.api('GET', `zones/${zone.id}/custom_hostnames/${id}`)).body.result.status).toBe('moved');
    mark = emu.mark();
    const updated = await provider.update(id, read.props, news);
    expect(await calls(mark)).toEqual([`GET custom_hostnames/${id} 200`, `PATCH custom_hostnames/${id} 200`]);
    expect(updated.outs).toMatchObject({ status: 'active', sslStatus: 'active' });
    expect(progress).toEqual(['CustomHostnameValidation moving.customer.net: moved; restarting its validation']);
    // The edit changed no setting: the stored request still leaves the CA to the service.
    const stored = ((await emu.control('GET', 'state')).body.result.custom_hostnames as any[]).find((r) => r.id === id);
    expect(stored.ssl).toEqual({ method: 'txt', type: 'dv', certificate_authority: '' });
  });

  test('update of a hostname revalidated already (by its own update) reads it and sends no PATCH', async () => {
    const zone = await freshZone();
    const record = await hostnameIn(zone.id, 'once.customer.net');
    await publishOwnership(record);
    const news = await checked(inputs({ zoneId: zone.id, customHostnameId: record.id }));
    const { id, outs } = await create(news);
    await publish('once.customer.net', [{ type: 'CNAME', value: 'edge.other-provider.example' }]);
    const read = await provider.read(id, outs);
    expect(read.props.status).toBe('moved');
    await publish('once.customer.net', []);
    // What CustomHostname's update does when refresh found it moved: one PATCH.
    expect((await emu.api('PATCH', `zones/${zone.id}/custom_hostnames/${id}`, { body: { ssl: {} } })).status).toBe(200);
    const mark = emu.mark();
    const updated = await provider.update(id, read.props, news);
    expect(updated.outs.status).toBe('active');
    expect(await emu.writesSince(mark)).toEqual([]);
  });

  test('delete sends nothing; read of a deleted hostname reports it gone', async () => {
    const zone = await freshZone();
    const record = await hostnameIn(zone.id, 'gone.customer.net');
    await publishOwnership(record);
    const { id, outs } = await create(inputs({ zoneId: zone.id, customHostnameId: record.id }));
    let mark = emu.mark();
    await provider.delete(id, outs);
    expect(await emu.requests(mark)).toEqual([]);
    expect((await emu.api('GET', `zones/${zone.id}/custom_hostnames/${id}`)).status).toBe(200);

    expect((await emu.api('DELETE', `zones/${zone.id}/custom_hostnames/${id}`)).status).toBe(200);
    mark = emu.mark();
    expect(await provider.read(id, outs)).toEqual({});
    expect(await calls(mark)).toEqual([`GET custom_hostnames/${id} 404`]);
  });
});
