import { UNKNOWN } from '../../../provider/runtime/check';
import { changedInputs } from '../../../provider/runtime/wire';
import { runtime, type PageSecuritySettingOutputs } from '../../../provider/runtime/page-security-setting';
import { provider } from '../../../provider/dynamic/runtime/page-security-setting';
import { ZONE } from '../../helpers/inputs';

/**
 * `PageSecuritySetting`: check and diff as pure functions (its methods against the emulator:
 * tests/service/provider/page-security-setting.test.ts).
 */

const OTHER_ZONE = 'c0000000000000000000000000000002';

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
    expect(changedInputs(runtime, olds, news as never)).toEqual(changed);
    await expect(provider.diff(ZONE, olds, news)).resolves.toEqual(result);
  });
});
