import { randomBytes } from 'node:crypto';
import { APIResponseError } from '../../../provider/client/errors';
import { UNKNOWN } from '../../../provider/runtime/check';
import {
  changedProperties,
  provider,
  type PageSecuritySettingOutputs,
} from '../../../provider/runtime/page-security-setting';
import { ACCOUNT_ID, startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { configureProvider } from '../../helpers/provider';

/**
 * `PageSecuritySetting`: check and diff as pure functions, then every provider method against the
 * emulator, with the requests each one makes. Each emulator test works in a zone of its own.
 */

const ZONE = 'c0000000000000000000000000000001';
const OTHER_ZONE = 'c0000000000000000000000000000002';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const check = (news: Record<string, unknown>) => provider.check({}, news);

describe('check', () => {
  test('valid inputs come back as given', async () => {
    await expect(check({ zoneId: ZONE, enabled: true })).resolves.toEqual({ inputs: { zoneId: ZONE, enabled: true } });
    await expect(check({ zoneId: ZONE, enabled: false })).resolves.toEqual({
      inputs: { zoneId: ZONE, enabled: false },
    });
  });

  test.each([
    ['a missing zoneId', { enabled: true }, 'zoneId', "is required: the zone's id: 32 hexadecimal characters"],
    [
      'a malformed zoneId',
      { zoneId: 'c000', enabled: true },
      'zoneId',
      'must be the zone\'s id: 32 hexadecimal characters (got "c000")',
    ],
    [
      'a zoneId with a non-hex character',
      { zoneId: `g${ZONE.slice(1)}`, enabled: true },
      'zoneId',
      `must be the zone's id: 32 hexadecimal characters (got "g${ZONE.slice(1)}")`,
    ],
    [
      'a missing enabled',
      { zoneId: ZONE },
      'enabled',
      'is required: true to turn page security on, false to turn it off',
    ],
    ['enabled as a string', { zoneId: ZONE, enabled: 'true' }, 'enabled', 'must be true or false (got "true")'],
  ])('%s fails on its property', async (_name, news, property, reason) => {
    await expect(check(news)).resolves.toEqual({ inputs: news, failures: [{ property, reason }] });
  });

  test('preview unknowns are let through', async () => {
    const news = { zoneId: UNKNOWN, enabled: UNKNOWN };
    await expect(check(news)).resolves.toEqual({ inputs: news });
  });
});

describe('diff', () => {
  const olds: PageSecuritySettingOutputs = {
    zoneId: ZONE,
    enabled: true,
    updatedAt: '2026-01-01T00:00:00.000Z',
    useVendorReportingEndpoint: true,
    useConnectionUrlPath: false,
    enabledBeforeCreate: false,
  };

  test.each([
    ['nothing', { zoneId: ZONE, enabled: true }, [], { changes: false, replaces: [] }],
    ['enabled', { zoneId: ZONE, enabled: false }, ['enabled'], { changes: true, replaces: [] }],
    ['the zone', { zoneId: OTHER_ZONE, enabled: true }, ['zoneId'], { changes: true, replaces: ['zoneId'] }],
    ['both', { zoneId: OTHER_ZONE, enabled: false }, ['zoneId', 'enabled'], { changes: true, replaces: ['zoneId'] }],
    ['an unknown zone', { zoneId: UNKNOWN, enabled: true }, ['zoneId'], { changes: true, replaces: ['zoneId'] }],
  ])('%s', async (_name, news, changed, result) => {
    expect(changedProperties(olds, news as never)).toEqual(changed);
    await expect(provider.diff(ZONE, olds, news)).resolves.toEqual(result);
  });
});

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
    expect(changedProperties(read.props, { zoneId: zone, enabled: true })).toEqual(['enabled']);
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
