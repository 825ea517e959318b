import { randomBytes } from 'node:crypto';
import { APIResponseError } from '../../../provider/client/errors';
import { changedInputs } from '../../../provider/runtime/wire';
import { runtime } from '../../../provider/runtime/page-security-setting';
import { provider } from '../../../provider/dynamic/runtime/page-security-setting';
import { ACCOUNT_ID, startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { ZONE } from '../../helpers/inputs';
import { configureProvider } from '../../helpers/provider';

/**
 * `PageSecuritySetting`: every provider method against the emulator, with the requests each one
 * makes. Each test works in a zone of its own. (Check and diff alone:
 * tests/unit/provider/page-security-setting.test.ts.)
 */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('against the emulator', () => {
  let emu: TestEmulator;

  beforeAll(async () => {
    emu = await startTestEmulator();
    await configureProvider(emu);
  });
  afterAll(async () => emu.close());

  async function newZone(): Promise<string> {
    const id = randomBytes(16).toString('hex');
    const reply = await emu.control('POST', 'seed', {
      zones: [{ id, name: `z${id.slice(0, 8)}.example`, account_id: ACCOUNT_ID }],
    });
    expect(reply.status).toBe(200);
    return id;
  }

  const settingsPath = (zone: string) => `/client/v4/zones/${zone}/page_security`;
  const calls = async (since: number) => (await emu.requests(since)).map((r) => `${r.method} ${r.path} ${r.status}`);

  async function liveEnabled(zone: string): Promise<boolean> {
    const reply = await emu.api('GET', `zones/${zone}/page_security`);
    expect(reply.status).toBe(200);
    return reply.body.result.enabled;
  }

  async function setEnabled(zone: string, enabled: boolean): Promise<void> {
    const reply = await emu.api('PUT', `zones/${zone}/page_security`, { body: { enabled } });
    expect(reply.status).toBe(200);
  }

  test('create reads the value before, sets it, reads back the flags; the id is the zone', async () => {
    const zone = await newZone();
    const mark = emu.mark();
    const created = await provider.create({ zoneId: zone, enabled: true });
    expect(await calls(mark)).toEqual([
      `GET ${settingsPath(zone)} 200`,
      `PUT ${settingsPath(zone)} 200`,
      `GET ${settingsPath(zone)} 200`,
    ]);
    expect(created).toEqual({
      id: zone,
      outs: {
        zoneId: zone,
        enabled: true,
        updatedAt: expect.stringMatching(ISO),
        useVendorReportingEndpoint: true,
        useConnectionUrlPath: false,
        enabledBeforeCreate: false,
      },
    });
    expect(await liveEnabled(zone)).toBe(true);
  });

  test('create of the value the zone has already takes the setting over with one GET and no write', async () => {
    const zone = await newZone();
    await setEnabled(zone, true);
    const before = (await emu.api('GET', `zones/${zone}/page_security`)).body.result;
    const mark = emu.mark();
    const created = await provider.create({ zoneId: zone, enabled: true });
    expect(await calls(mark)).toEqual([`GET ${settingsPath(zone)} 200`]);
    expect(created).toEqual({
      id: zone,
      outs: {
        zoneId: zone,
        enabled: true,
        updatedAt: before.updated_at,
        useVendorReportingEndpoint: true,
        useConnectionUrlPath: false,
        enabledBeforeCreate: true,
      },
    });
    expect((await emu.api('GET', `zones/${zone}/page_security`)).body.result).toEqual(before);
  });

  test('read makes one GET; a change made through the API shows as drift', async () => {
    const zone = await newZone();
    const { id, outs } = await provider.create({ zoneId: zone, enabled: true });
    const mark = emu.mark();
    await expect(provider.read(id, outs)).resolves.toEqual({
      id,
      props: outs,
      inputs: { zoneId: zone, enabled: true },
    });
    expect(await calls(mark)).toEqual([`GET ${settingsPath(zone)} 200`]);

    await setEnabled(zone, false);
    const read = await provider.read(id, outs);
    expect(read.inputs).toEqual({ zoneId: zone, enabled: false });
    expect(read.props).toEqual({
      ...outs,
      enabled: false,
      updatedAt: expect.stringMatching(ISO),
      enabledBeforeCreate: false,
    });
    expect(changedInputs(runtime, read.props, { zoneId: zone, enabled: true })).toEqual(['enabled']);
  });

  test('read of a resource never created (a get) keeps the current value as the one to restore', async () => {
    const zone = await newZone();
    await setEnabled(zone, true);
    const read = await provider.read(zone, {});
    expect(read.props).toMatchObject({ zoneId: zone, enabled: true, enabledBeforeCreate: true });
  });

  test('update makes one PUT and one GET and keeps the value to restore', async () => {
    const zone = await newZone();
    const { id, outs } = await provider.create({ zoneId: zone, enabled: true });
    const mark = emu.mark();
    const updated = await provider.update(id, outs, { zoneId: zone, enabled: false });
    expect(await calls(mark)).toEqual([`PUT ${settingsPath(zone)} 200`, `GET ${settingsPath(zone)} 200`]);
    expect(updated.outs).toEqual({ ...outs, enabled: false, updatedAt: expect.stringMatching(ISO) });
    expect(await liveEnabled(zone)).toBe(false);
  });

  test.each([false, true])(
    'delete puts back the value found before create (%s), and a second delete succeeds',
    async (before) => {
      const zone = await newZone();
      await setEnabled(zone, before);
      const { id, outs } = await provider.create({ zoneId: zone, enabled: !before });
      expect(outs.enabledBeforeCreate).toBe(before);
      expect(await liveEnabled(zone)).toBe(!before);
      const mark = emu.mark();
      await provider.delete(id, outs);
      await provider.delete(id, outs);
      expect(await calls(mark)).toEqual([`PUT ${settingsPath(zone)} 200`, `PUT ${settingsPath(zone)} 200`]);
      expect(await liveEnabled(zone)).toBe(before);
    },
  );

  test('a zone that is gone reads as gone, and delete of it succeeds', async () => {
    const missing = randomBytes(16).toString('hex');
    await expect(provider.read(missing, { zoneId: missing })).resolves.toEqual({});
    await expect(
      provider.delete(missing, {
        zoneId: missing,
        enabled: true,
        updatedAt: '',
        useVendorReportingEndpoint: true,
        useConnectionUrlPath: false,
        enabledBeforeCreate: false,
      }),
    ).resolves.toBeUndefined();
  });
});

describe('the vendor setting names the reporting flag', () => {
  let emu: TestEmulator;

  beforeAll(async () => {
    emu = await startTestEmulator({ vendor: 'acme' });
  });
  afterAll(async () => emu.close());

  const zone = ZONE;

  test('with the service vendor, use_acme_reporting_endpoint is read into useVendorReportingEndpoint', async () => {
    await configureProvider(emu, { 'edgeguard:vendor': 'acme' });
    const read = await provider.read(zone, {});
    expect(read.props).toMatchObject({ useVendorReportingEndpoint: true, useConnectionUrlPath: false });
  });

  test('with another vendor, the missing flag is an error that names it and the vendor setting', async () => {
    await configureProvider(emu);
    const attempt = provider.read(zone, {});
    await expect(attempt).rejects.toBeInstanceOf(APIResponseError);
    await expect(attempt).rejects.toThrow(
      'use_edgeguard_reporting_endpoint: must be a boolean (is the vendor setting "edgeguard" the service\'s?)',
    );
  });
});
