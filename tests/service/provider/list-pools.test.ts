import { listPools } from '../../../provider/helpers/read';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
  await emu.control('POST', 'seed', {
    pools: ['us-east', 'ap-south', 'eu-west'].map((name) => ({
      account_id: ACCOUNT_ID,
      name,
      notification_email: `${name}@example.com`,
    })),
  });
});
afterAll(async () => emu.close());

test('listPools returns every pool of the account in name order, in one request', async () => {
  const mark = emu.mark();
  const pools = await listPools(ACCOUNT_ID, { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN });
  expect(pools.map((p) => [p.name, p.notification_email])).toEqual([
    ['ap-south', 'ap-south@example.com'],
    ['eu-west', 'eu-west@example.com'],
    ['us-east', 'us-east@example.com'],
  ]);
  expect(pools.every((p) => /^[0-9a-f]{32}$/.test(p.id))).toBe(true);
  expect(await emu.requests(mark)).toHaveLength(1);
});
