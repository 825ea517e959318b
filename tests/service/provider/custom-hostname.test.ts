import * as pulumi from '@pulumi/pulumi';
import {
  CustomHostnameNotReadyError,
  diffCustomHostname,
  type CustomHostnameInputs,
  type CustomHostnameOutputs,
} from '../../../provider/runtime/custom-hostname';
import { provider as runtime } from '../../../provider/dynamic/runtime/custom-hostname';
import { ACCOUNT_ID, startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { customHostnameInputs as inputs, hostnameOfLength } from '../../helpers/inputs';
import { configureProvider } from '../../helpers/provider';
import { until } from '../../helpers/until';

/**
 * `CustomHostname`: every provider method against the emulator (creation, validation through
 * published DNS, CAA errors, held zones, moved and expired hostnames, conflicts, issuance pacing
 * and 429s), with the requests each one makes. (Check, diff and the class alone:
 * tests/unit/provider/custom-hostname.test.ts.)
 */

const provider = runtime as Required<pulumi.dynamic.ResourceProvider>;
const SERIALIZED = 'exports.handler = () => ({})';

describe('against the emulator', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
    await configureProvider(emu);
  });
  afterAll(async () => emu.close());

  let zoneSeq = 0;
  /** A zone per test: creates count toward a per-zone limit, in the emulator and in the pacer. */
  async function freshZone(): Promise<{ id: string; name: string }> {
    zoneSeq += 1;
    const zone = { id: `d${zoneSeq.toString(16).padStart(31, '0')}`, name: `saas${zoneSeq}.example.com` };
    const seeded = await emu.control('POST', 'seed', { zones: [{ ...zone, account_id: ACCOUNT_ID }] });
    expect(seeded.status).toBe(200);
    return zone;
  }

  async function publish(
    hostname: string,
    records: Array<{ type: string; name?: string; value: string }>,
  ): Promise<void> {
    const reply = await emu.control('POST', 'dns', { hostname, records });
    expect(reply.status).toBe(200);
  }

  async function publishOwnership(outs: CustomHostnameOutputs): Promise<void> {
    await publish(outs.hostname, [{ type: 'TXT', name: outs.ownershipRecordName, value: outs.ownershipRecordValue }]);
  }

  /** `METHOD path status` of the API requests after `mark`, the path below the zone. */
  async function calls(mark: number): Promise<string[]> {
    return (await emu.requests(mark)).map(
      (r) =>
        `${r.method} ${r.path.replace(/^\/client\/v4\/zones\/[0-9a-f]{32}\//, '')}${r.query.hostname ? `?hostname=${String(r.query.hostname)}` : ''} ${r.status}`,
    );
  }

  /** Waits until `line` (as {@link calls} shows it) is in the request log after `mark`: an event to act on, not a guess of when it happens. */
  async function untilCalled(mark: number, line: string): Promise<void> {
    await until(
      async () => (await calls(mark)).includes(line),
      20_000,
      async () => `no "${line}" in the request log within 20 s: ${JSON.stringify(await calls(mark))}`,
      10,
    );
  }

  async function create(news: Record<string, unknown>): Promise<{ id: string; outs: CustomHostnameOutputs }> {
    const checked = await provider.check({}, news);
    expect(checked.failures).toBeUndefined();
    // As the dynamic-provider host does, the serialized provider goes along with the checked inputs.
    const created = await provider.create({
      ...checked.inputs,
      ...(news.__provider !== undefined ? { __provider: news.__provider } : {}),
    });
    return { id: created.id, outs: created.outs as CustomHostnameOutputs };
  }

  /** What a create or update threw, which must be a partial failure. */
  async function notReady(action: Promise<unknown>): Promise<CustomHostnameNotReadyError> {
    const error = await action.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CustomHostnameNotReadyError);
    return error as CustomHostnameNotReadyError;
  }

  test('create: one POST, pending, with the TXT record that proves ownership', async () => {
    const zone = await freshZone();
    const mark = emu.mark();
    const { id, outs } = await create(inputs({ zoneId: zone.id, hostname: 'Create.Customer.net' }));
    expect(await calls(mark)).toEqual(['POST custom_hostnames 200']);
    expect(outs).toEqual({
      zoneId: zone.id,
      hostname: 'create.customer.net',
      ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
      branding: false,
      waitForActive: false,
      waitTimeoutSeconds: 300,
      customHostnameId: id,
      status: 'pending',
      sslStatus: 'pending_validation',
      certificateAuthorityInUse: 'google',
      verificationErrors: ['custom hostname does not CNAME to this zone.'],
      ownershipRecordName: '_edgeguard-custom-hostname.create.customer.net',
      ownershipRecordValue: expect.stringMatching(/^[0-9a-f-]{36}$/),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const live = await emu.api('GET', `zones/${zone.id}/custom_hostnames/${id}`);
    expect(live.body.result.edgeguard_branding).toBe(false);
  });

  test('a 65-character hostname with branding is created with the vendor field set', async () => {
    const zone = await freshZone();
    const hostname = hostnameOfLength(65);
    const { id, outs } = await create(inputs({ zoneId: zone.id, hostname, branding: true }));
    expect(outs.branding).toBe(true);
    expect((await emu.api('GET', `zones/${zone.id}/custom_hostnames/${id}`)).body.result.edgeguard_branding).toBe(true);
  });

  test('read: one GET; the TXT record published makes it active; a requested "" stays ""', async () => {
    const zone = await freshZone();
    const { id, outs } = await create(inputs({ zoneId: zone.id, hostname: 'read.customer.net' }));
    await publishOwnership(outs);
    const mark = emu.mark();
    const read = await provider.read(id, outs);
    expect(await calls(mark)).toEqual([`GET custom_hostnames/${id} 200`]);
    expect(read.id).toBe(id);
    expect(read.props).toEqual({ ...outs, status: 'active', sslStatus: 'active', verificationErrors: [] });
    expect(read.inputs).toEqual({
      zoneId: zone.id,
      hostname: 'read.customer.net',
      ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
      branding: false,
      waitForActive: false,
      waitTimeoutSeconds: 300,
    });
    expect(diffCustomHostname(read.props as CustomHostnameOutputs, read.inputs as CustomHostnameInputs)).toEqual([]);
  });

  test('drift: a certificate authority changed through the API shows on read, and update PATCHes it back', async () => {
    const zone = await freshZone();
    const news = (
      await provider.check(
        {},
        inputs({
          zoneId: zone.id,
          hostname: 'drift.customer.net',
          ssl: { method: 'txt', type: 'dv', certificateAuthority: 'google' },
        }),
      )
    ).inputs;
    const { id, outs } = await provider.create(news);
    const patched = await emu.api('PATCH', `zones/${zone.id}/custom_hostnames/${id}`, {
      body: { ssl: { certificate_authority: 'lets_encrypt' } },
    });
    expect(patched.status).toBe(200);

    const read = await provider.read(id, outs);
    expect(read.inputs.ssl).toEqual({ method: 'txt', type: 'dv', certificateAuthority: 'lets_encrypt' });
    expect(read.props.certificateAuthorityInUse).toBe('lets_encrypt');
    expect(await provider.diff(id, read.props, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });

    const mark = emu.mark();
    const updated = await provider.update(id, read.props, news);
    expect(await calls(mark)).toEqual([`PATCH custom_hostnames/${id} 200`]);
    expect(updated.outs.ssl).toEqual({ method: 'txt', type: 'dv', certificateAuthority: 'google' });
    expect(updated.outs.certificateAuthorityInUse).toBe('google');
  });

  test('update of waitTimeoutSeconds alone reads the hostname and does not restart validation', async () => {
    const zone = await freshZone();
    const { id, outs } = await create(inputs({ zoneId: zone.id, hostname: 'settings.customer.net' }));
    const news = (
      await provider.check({}, inputs({ zoneId: zone.id, hostname: 'settings.customer.net', waitTimeoutSeconds: 60 }))
    ).inputs;
    const mark = emu.mark();
    const updated = await provider.update(id, outs, news);
    expect(await calls(mark)).toEqual([`GET custom_hostnames/${id} 200`]);
    expect(updated.outs).toEqual({ ...outs, waitTimeoutSeconds: 60 });
  });

  test('waitForActive: create waits until the DNS published meanwhile validates the hostname', async () => {
    const zone = await freshZone();
    const hostname = 'wait.customer.net';
    const mark = emu.mark();
    const creating = create(inputs({ zoneId: zone.id, hostname, waitForActive: true, waitTimeoutSeconds: 20 }));
    // Ownership by a CNAME into the zone, published once the create has made the hostname (pending)
    // and is waiting, as another step of the deployment would.
    await untilCalled(mark, 'POST custom_hostnames 200');
    await publish(hostname, [{ type: 'CNAME', value: `edge.${zone.name}` }]);
    const { id, outs } = await creating;
    expect(outs.status).toBe('active');
    // The POST answered pending, so only reads after it can have seen the hostname active.
    const made = await calls(mark);
    expect(made.length).toBeGreaterThan(1);
    expect(made).toEqual([
      'POST custom_hostnames 200',
      ...Array<string>(made.length - 1).fill(`GET custom_hostnames/${id} 200`),
    ]);
  });

  test('waitForActive: a timeout fails the step saying what to publish, and keeps the hostname in the state', async () => {
    const zone = await freshZone();
    const started = Date.now();
    const error = await notReady(
      create({
        ...inputs({ zoneId: zone.id, hostname: 'late.customer.net', waitForActive: true, waitTimeoutSeconds: 2 }),
        __provider: SERIALIZED,
      }),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    const token = String(error.properties.ownershipRecordValue);
    expect(error.message).toBe(
      `custom hostname "late.customer.net" (${error.id} in zone ${zone.id}) did not become active within 2 s (waitForActive): its status is pending. ` +
        `To prove ownership, publish the TXT record _edgeguard-custom-hostname.late.customer.net with the value "${token}" ` +
        '(or a CNAME from late.customer.net to a hostname in the zone), then run pulumi up again to wait again (or set waitForActive to false). ' +
        'The service reports: "custom hostname does not CNAME to this zone."',
    );
    expect(error.reasons).toEqual([error.message]);
    expect(error.properties).toMatchObject({
      customHostnameId: error.id,
      status: 'pending',
      waitForActive: true,
      __provider: SERIALIZED,
    });
    expect((await emu.api('GET', `zones/${zone.id}/custom_hostnames/${error.id}`)).status).toBe(200);

    // The engine updates a partially failed resource on the next `pulumi up`: with the TXT record published, it succeeds.
    await publish('late.customer.net', [
      { type: 'TXT', name: '_edgeguard-custom-hostname.late.customer.net', value: token },
    ]);
    const updated = await provider.update(error.id, error.properties, {
      ...inputs({ zoneId: zone.id, hostname: 'late.customer.net', waitForActive: true, waitTimeoutSeconds: 2 }),
      __provider: SERIALIZED,
    });
    expect(updated.outs.status).toBe('active');
  });

  test('caa_error fails the create naming the CA the CAA records must permit; the next update revalidates', async () => {
    const zone = await freshZone();
    const hostname = 'caa.customer.net';
    const cname = { type: 'CNAME', value: `edge.${zone.name}` };
    await publish(hostname, [cname, { type: 'CAA', value: '0 issue "letsencrypt.org"' }]);
    const news = (
      await provider.check(
        {},
        inputs({ zoneId: zone.id, hostname, ssl: { method: 'txt', type: 'dv', certificateAuthority: 'google' } }),
      )
    ).inputs;
    const mark = emu.mark();
    const error = await notReady(provider.create({ ...news, __provider: SERIALIZED }));
    expect(await calls(mark)).toEqual(['POST custom_hostnames 200']);
    expect(error.message).toBe(
      `custom hostname "caa.customer.net" (${error.id} in zone ${zone.id}) has status caa_error: ` +
        "the domain's CAA records do not permit the certificate authority in use, google. " +
        'Add a CAA record 0 issue "pki.goog" to the domain that holds the CAA records of caa.customer.net ' +
        '(or set ssl.certificateAuthority to a certificate authority those records permit), then run pulumi up again: the update restarts validation. ' +
        'The service reports: "CAA records for caa.customer.net do not permit google (pki.goog); add 0 issue \\"pki.goog\\" or request another certificate_authority"',
    );
    expect(error.properties).toMatchObject({
      status: 'caa_error',
      sslStatus: 'caa_error',
      certificateAuthorityInUse: 'google',
      __provider: SERIALIZED,
    });

    await publish(hostname, [cname, { type: 'CAA', value: '0 issue "pki.goog"' }]);
    const retry = emu.mark();
    const updated = await provider.update(error.id, error.properties, news);
    expect(await calls(retry)).toEqual([`PATCH custom_hostnames/${error.id} 200`]);
    expect(updated.outs.status).toBe('active');
  });

  test('caa_error with the CA left to the service names both CAs', async () => {
    const zone = await freshZone();
    const hostname = '*.wild.customer.net';
    await publish('wild.customer.net', [{ type: 'CAA', value: '0 issuewild ";"' }]);
    await publish(hostname, [{ type: 'CNAME', value: `edge.${zone.name}` }]);
    const error = await notReady(create(inputs({ zoneId: zone.id, hostname })));
    expect(error.message).toContain(
      'Add a CAA record 0 issuewild "pki.goog" to the domain that holds the CAA records of wild.customer.net (or 0 issuewild "letsencrypt.org", which lets the service use lets_encrypt)',
    );
  });

  test('blocked under a held zone fails the create saying the hold must be released', async () => {
    const zone = await freshZone();
    const held = { id: 'b0000000000000000000000000000001', name: 'held.example.org' };
    expect((await emu.control('POST', 'seed', { zones: [{ ...held, account_id: ACCOUNT_ID }] })).status).toBe(200);
    expect((await emu.control('POST', `zones/${held.id}/hold`, { include_subdomains: true })).status).toBe(200);
    try {
      const error = await notReady(create(inputs({ zoneId: zone.id, hostname: 'shop.held.example.org' })));
      expect(error.message).toBe(
        `custom hostname "shop.held.example.org" (${error.id} in zone ${zone.id}) has status blocked: it is associated with a zone on hold that also holds its subdomains. ` +
          'The owner of that zone must release the hold; then run pulumi up again to restart validation. ' +
          'The service reports: "shop.held.example.org is associated with a held zone (held.example.org); the zone owner must release the hold before the hostname can become active."',
      );
      expect(error.properties.status).toBe('blocked');
    } finally {
      await emu.control('DELETE', `zones/${held.id}/hold`);
    }
  });

  test('moved: read shows it, diff wants an update, the update PATCHes and with DNS back it is active', async () => {
    const zone = await freshZone();
    const hostname = 'moved.customer.net';
    const news = (await provider.check({}, inputs({ zoneId: zone.id, hostname }))).inputs;
    const { id, outs } = await provider.create(news);
    await publishOwnership(outs);
    const active = await provider.read(id, outs);
    expect(active.props.status).toBe('active');

    await publish(hostname, [{ type: 'CNAME', value: 'elsewhere.example.net' }]);
    const moved = await provider.read(id, active.props);
    expect(moved.props).toMatchObject({
      status: 'moved',
      verificationErrors: ['custom hostname does not CNAME to this zone.'],
    });
    expect(moved.inputs).toEqual(news);
    expect(await provider.diff(id, moved.props, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });

    await publishOwnership(outs);
    const mark = emu.mark();
    const updated = await provider.update(id, moved.props, news);
    expect(await calls(mark)).toEqual([`PATCH custom_hostnames/${id} 200`]);
    expect(updated.outs.status).toBe('active');
    expect(await provider.diff(id, updated.outs, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  test('a hostname the service deleted (7 days moved) reads as gone, and deleting it succeeds', async () => {
    const zone = await freshZone();
    const hostname = 'expired.customer.net';
    const { id, outs } = await create(inputs({ zoneId: zone.id, hostname }));
    await publishOwnership(outs);
    expect((await provider.read(id, outs)).props.status).toBe('active');
    await publish(hostname, [{ type: 'CNAME', value: 'elsewhere.example.net' }]);
    expect((await provider.read(id, outs)).props.status).toBe('moved');
    expect((await emu.control('POST', 'clock', { advance_seconds: 8 * 86400 })).status).toBe(200);

    const mark = emu.mark();
    expect(await provider.read(id, outs)).toEqual({});
    await provider.delete(id, outs);
    expect(await calls(mark)).toEqual([`GET custom_hostnames/${id} 404`, `DELETE custom_hostnames/${id} 404`]);
  });

  test('update of a hostname gone since the last refresh says to refresh', async () => {
    const zone = await freshZone();
    const { id, outs } = await create(inputs({ zoneId: zone.id, hostname: 'gone.customer.net' }));
    expect((await emu.api('DELETE', `zones/${zone.id}/custom_hostnames/${id}`)).status).toBe(200);
    const news = (
      await provider.check(
        {},
        inputs({ zoneId: zone.id, hostname: 'gone.customer.net', ssl: { method: 'http', type: 'dv' } }),
      )
    ).inputs;
    await expect(provider.update(id, outs, news)).rejects.toThrow(
      `custom hostname ${id} no longer exists in zone ${zone.id}`,
    );
  });

  test('delete twice: the second finds it gone and succeeds', async () => {
    const zone = await freshZone();
    const { id, outs } = await create(inputs({ zoneId: zone.id, hostname: 'twice.customer.net' }));
    const mark = emu.mark();
    await provider.delete(id, outs);
    await provider.delete(id, outs);
    expect(await calls(mark)).toEqual([`DELETE custom_hostnames/${id} 200`, `DELETE custom_hostnames/${id} 404`]);
  });

  test('a hostname that already exists in the zone fails the create, naming its id to set as adoptId', async () => {
    const zone = await freshZone();
    const existing = await emu.api('POST', `zones/${zone.id}/custom_hostnames`, {
      body: { hostname: 'taken.customer.net', ssl: { method: 'txt', type: 'dv' } },
    });
    const existingId: string = existing.body.result.id;
    const mark = emu.mark();
    const failure = create(inputs({ zoneId: zone.id, hostname: 'taken.customer.net' }));
    await expect(failure).rejects.toThrow(
      `custom hostname "taken.customer.net" already exists in zone ${zone.id} as custom hostname ${existingId}, which this stack does not manage. ` +
        `To take it over as it is (it keeps its ownership token and status, and nothing is created), set adoptId: "${existingId}" ` +
        "in this CustomHostname's arguments and run pulumi up again. (create custom hostname (POST",
    );
    await expect(failure).rejects.toThrow(/HTTP 409: \[1406\]/);
    expect(await calls(mark)).toEqual([
      'POST custom_hostnames 409',
      'GET custom_hostnames?hostname=taken.customer.net 200',
    ]);
  });

  test('a read-only get (only zoneId known) reads the live hostname', async () => {
    const zone = await freshZone();
    const { id } = await create(
      inputs({
        zoneId: zone.id,
        hostname: 'get.customer.net',
        ssl: { method: 'http', type: 'dv', certificateAuthority: 'lets_encrypt' },
      }),
    );
    const read = await provider.read(id, { zoneId: zone.id, __provider: SERIALIZED });
    expect(read.inputs).toEqual({
      zoneId: zone.id,
      hostname: 'get.customer.net',
      ssl: { method: 'http', type: 'dv', certificateAuthority: 'lets_encrypt' },
      branding: false,
      waitForActive: false,
      waitTimeoutSeconds: 300,
    });
    expect(read.props.customHostnameId).toBe(id);
  });

  test('after a lost response the create finds its own hostname instead of creating a second', async () => {
    const zone = await freshZone();
    expect(
      (
        await emu.control('POST', 'faults', {
          reset_rate: 1,
          reset_phase: 'after',
          methods: ['POST'],
          paths: ['zones/*/custom_hostnames'],
        })
      ).status,
    ).toBe(200);
    const mark = emu.mark();
    let created: { id: string; outs: CustomHostnameOutputs };
    try {
      created = await create(inputs({ zoneId: zone.id, hostname: 'lost.customer.net' }));
    } finally {
      await emu.control('POST', 'faults', {});
    }
    const log = await emu.requests(mark);
    expect(log.map((r) => [r.method, r.status])).toEqual([
      ['POST', null],
      ['GET', 200],
    ]);
    const all = await emu.api('GET', `zones/${zone.id}/custom_hostnames`);
    expect(all.body.result.map((r: { id: string }) => r.id)).toEqual([created.id]);
  });

  test("pacing: 20 creates in one zone, over the service's limit of 15 per window, all succeed without a 429", async () => {
    // The service allows 15 creates per zone in 60 s of its clock, then refuses creates for 30 s.
    // This emulator's clock runs 60 times faster than the real one, so its window is 1 real second;
    // told so (issuanceWindowSeconds 1), the provider must hold the last 5 creates back until the
    // first 15 have left the window. Without pacing, the 16th would be answered 429.
    const origin = Date.now();
    const fast = await startTestEmulator({ now: () => origin + (Date.now() - origin) * 60 });
    const previous = {
      limit: process.env.EDGEGUARD_ISSUANCE_LIMIT,
      window: process.env.EDGEGUARD_ISSUANCE_WINDOW_SECONDS,
    };
    process.env.EDGEGUARD_ISSUANCE_LIMIT = '15';
    process.env.EDGEGUARD_ISSUANCE_WINDOW_SECONDS = '1';
    const started = Date.now();
    try {
      await configureProvider(fast);
      const names = Array.from({ length: 20 }, (_, n) => `paced${n}.customer.net`);
      // A 429 would keep the provider waiting its Retry-After of 30 real seconds: fail on the first one instead.
      let creating = true;
      const watch = (async () => {
        while (creating) {
          const refused = (await fast.requests()).filter((r) => r.status === 429).length;
          if (refused > 0)
            throw new Error(
              `the service answered 429 to ${refused} create(s): the creates were not paced under its limit`,
            );
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      try {
        await Promise.race([
          Promise.all(names.map((hostname) => create(inputs({ zoneId: ZONE_ID, hostname })))),
          watch,
        ]);
      } finally {
        creating = false;
      }
      await watch;
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      expect((await fast.requests()).map((r) => `${r.method} ${r.status}`)).toEqual(Array(20).fill('POST 200'));
      const live = await fast.api('GET', `zones/${ZONE_ID}/custom_hostnames`, { query: { per_page: 50 } });
      expect(live.body.result.map((r: { hostname: string }) => r.hostname).sort()).toEqual([...names].sort());
    } finally {
      for (const [name, value] of [
        ['EDGEGUARD_ISSUANCE_LIMIT', previous.limit],
        ['EDGEGUARD_ISSUANCE_WINDOW_SECONDS', previous.window],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await configureProvider(emu);
      await fast.close();
    }
  });

  test('a 429 from other traffic waits the Retry-After, then the create succeeds', async () => {
    const zone = await freshZone();
    const path = `zones/${zone.id}/custom_hostnames`;
    for (let i = 0; i < 15; i++) {
      expect(
        (
          await emu.api('POST', path, {
            body: { hostname: `other${i}.customer.net`, ssl: { method: 'txt', type: 'dv' } },
          })
        ).status,
      ).toBe(200);
    }
    // The clock is set before the create, never raced against it. 45 s on, the 15 are still in the
    // window of 60 s: the 16th is refused and starts a 30 s block. 28 s later 2 s of the block are
    // left, so the create is refused with Retry-After 2 (1 if the machine stalls a second); when it
    // retries the block is over and the 15 are more than 60 s old, so the retry is let through.
    expect((await emu.control('POST', 'clock', { advance_seconds: 45 })).status).toBe(200);
    expect(
      (await emu.api('POST', path, { body: { hostname: 'other15.customer.net', ssl: { method: 'txt', type: 'dv' } } }))
        .status,
    ).toBe(429);
    expect((await emu.control('POST', 'clock', { advance_seconds: 28 })).status).toBe(200);
    const mark = emu.mark();
    const started = Date.now();
    const { outs } = await create(inputs({ zoneId: zone.id, hostname: 'patient.customer.net' }));
    expect(outs.hostname).toBe('patient.customer.net');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(await calls(mark)).toEqual(['POST custom_hostnames 429', 'POST custom_hostnames 200']);
  }, 60_000);
});
