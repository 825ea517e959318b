import { randomBytes } from 'node:crypto';
import { HttpClient } from '../../../provider/client/http';
import { ApiBudget } from '../../../provider/client/pacing';
import { reviewService } from '../../../provider/review/plan';
import { resolveSettings } from '../../../provider/settings';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';

/**
 * The review under the service's API limit (issue 42, item 6), in the vendor's dialect (pages of
 * 100) against the emulator with the limit scaled down to 20 calls per 4 s: a zone whose listings
 * need more calls than a window allows is read whole, paced, with no 429, and the review says once
 * how long it waits, as the engine shows a policy pack's line (bench/vendor.ts measures the same at
 * the service's 1,200 per 300 s).
 */

const LIMIT = { limit: 20, windowSeconds: 4 };
const HOST = 'checkout.example.com';
/** 25 pages of 100 active scripts: with the other listings and the policy list, 29 calls. */
const SCRIPTS = 2_500;

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ dialect: 'vendor', apiRateLimit: LIMIT });
});
afterAll(async () => emu?.close());

test('a review that needs more calls than a window allows paces itself, draws no 429 and says how long it waits', async () => {
  const zone = randomBytes(16).toString('hex');
  await emu.seed({
    zones: [{ id: zone, name: 'example.com', account_id: ACCOUNT_ID }],
    scripts: Array.from({ length: SCRIPTS }, (_, i) => ({
      zone_id: zone,
      url: `https://cdn.example.net/lib/s-${i}.js`,
      page_urls: [`https://${HOST}/blog/${i}`],
    })),
  });
  // A fresh window: the seeding went through the control API, which the limit does not count.
  await emu.control('POST', 'clock', { advance_seconds: 60 });
  const notices: string[] = [];
  const budget = new ApiBudget(undefined, undefined, (line) => notices.push(line));
  const settings = resolveSettings({
    explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN, dialect: 'vendor' },
    env: {},
  });
  const mark = emu.mark();
  const result = await reviewService(
    new HttpClient(settings, { budget }),
    {
      policies: [
        {
          key: 'urn:csp',
          name: 'checkout-enforce',
          zoneId: zone,
          policy: {
            action: 'allow',
            enabled: true,
            expression: `http.host eq "${HOST}"`,
            value: 'script-src cdn.example.net',
          },
          replaces: 'none',
        },
      ],
      migrations: [],
      notifications: [],
    },
    { scope: 'full' },
  );
  const served = await emu.requests(mark);
  expect(served.length).toBeGreaterThan(LIMIT.limit);
  expect(served.map((request) => request.status).filter((status) => status !== 200)).toEqual([]);
  expect(result.requests.made).toBe(served.length);
  expect(result.policies[0]!.scripts.judged).toBe(SCRIPTS);
  expect(notices).toHaveLength(1);
  expect(notices[0]).toMatch(
    /^edgeguard: waiting [1-4] s for the service's API limit \(20 calls per 4 s per credential, shared by every tool and job using these credentials\)(; its window resets in [1-4] s, and until then the calls are spaced to fit it)?; later waits for it are not reported$/,
  );
  expect(notices[0]).not.toContain(TEST_TOKEN);
}, 30_000);
