import { randomBytes } from 'node:crypto';
import { AuthenticationError } from '../../../provider/client/errors';
import { clientFrom } from '../../../provider/client/shared';
import { reviewService, type ReviewInput } from '../../../provider/review/plan';
import { type PolicyUnderReview } from '../../../provider/impact/model';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';

/**
 * The review's request plan against the emulator: exactly the requests it states (the zone's
 * policies once, its scripts on the covered hosts once per status, single-script reads only for
 * scripts whose verdict depends on the page, within the limit, and the pools of migrated
 * accounts), what it finds with them, and a refused token.
 */

let emu: TestEmulator;
const client = () => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN } });

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

async function newZone(): Promise<string> {
  const id = randomBytes(16).toString('hex');
  await emu.seed({ zones: [{ id, name: 'example.com', account_id: ACCOUNT_ID }] });
  return id;
}

const CHECKOUT = 'checkout.example.com';
const script = (zone: string, url: string, extra: Record<string, unknown> = {}) => ({
  zone_id: zone,
  url,
  host: CHECKOUT,
  first_page_url: `https://${CHECKOUT}/pay`,
  js_integrity_score: 50,
  ...extra,
});

/** A connection seen on the checkout's payment page (its host comes from that page). */
const connection = (zone: string, url: string, extra: Record<string, unknown> = {}) => ({
  zone_id: zone,
  url,
  first_page_url: `https://${CHECKOUT}/pay`,
  ...extra,
});

function checkoutPolicy(
  zone: string,
  value: string,
  replaces: PolicyUnderReview['replaces'] = 'none',
): PolicyUnderReview {
  return {
    key: 'urn:checkout',
    name: 'checkout',
    zoneId: zone,
    policy: { action: 'allow', enabled: true, expression: `http.host eq "${CHECKOUT}"`, value },
    replaces,
  };
}

const input = (policies: PolicyUnderReview[]): ReviewInput => ({ policies, migrations: [], notifications: [] });

/** `GET path?query` of the requests after `mark`, the path below the zone. */
async function calls(mark: number, zone: string): Promise<string[]> {
  return (await emu.requests(mark)).map((r) => {
    const query = new URLSearchParams(r.query as Record<string, string>).toString();
    return `${r.method} ${r.path.replace(`/client/v4/zones/${zone}/${emu.pageSecurity}`, '')}${query ? `?${query}` : ''}`;
  });
}

describe('the request plan', () => {
  test('lists once per status on the covered hosts, reads pages only where the verdict depends on them', async () => {
    const zone = await newZone();
    await emu.seed({
      scripts: [
        // Over http: mixed content on an https page, blocked by the policy on an http one: its pages are read.
        script(zone, 'http://static.example.org/js/payment.js', {
          page_urls: [`https://${CHECKOUT}/pay`, `http://${CHECKOUT}/legacy-pay`],
        }),
        script(zone, 'https://js.stripe.com/v3/elements.js', {
          page_urls: [`https://${CHECKOUT}/pay`, `https://${CHECKOUT}/pay/confirm`],
        }),
        script(zone, 'https://cdn.example.net/a.js'),
        script(zone, 'https://cdn.example.net/b.js'),
        script(zone, 'https://cdn.example.net/rare.js', { status: 'infrequent' }),
        script(zone, 'https://bad.example.info/x.js', { js_integrity_score: 9 }),
        // Another host: not covered, not listed.
        script(zone, 'https://www.example.com/app.js', {
          host: 'www.example.com',
          first_page_url: 'https://www.example.com/',
        }),
      ],
      connections: [
        connection(zone, 'https://api.stripe.com/v1/tokens'),
        connection(zone, 'https://collect.example.net/x'),
        connection(zone, 'https://skimmer-drop.example.info/c.php', { domain_reported_malicious: true }),
        connection(zone, 'https://rare.example.net/ping', { status: 'infrequent' }),
        // Another host: not covered, not listed.
        connection(zone, 'https://www.google-analytics.com/g/collect', {
          first_page_url: 'https://www.example.com/',
        }),
      ],
    });
    const live = await emu.api('POST', `zones/${zone}/${emu.pageSecurity}/policies`, {
      body: {
        description: 'checkout',
        action: 'allow',
        expression: `http.host eq "${CHECKOUT}"`,
        enabled: emu.wireEnabled(true),
        value: "script-src 'self' js.stripe.com cdn.example.net",
      },
    });
    const listed = await emu.api('GET', `zones/${zone}/${emu.pageSecurity}/scripts`, { query: { per_page: 50 } });
    const idOf = (end: string) => listed.body.result.find((s: { url: string }) => s.url.endsWith(end)).id;
    const mark = emu.mark();
    const result = await reviewService(
      client(),
      input([
        checkoutPolicy(
          zone,
          "script-src 'self' cdn.example.net https://bad.example.info/x.js; connect-src api.stripe.com skimmer-drop.example.info",
          { id: live.body.result.id },
        ),
      ]),
      { perPage: 2 },
    );

    // Every script and connection of the hosts, those under /cdn-cgi/ included (the service hides them by default).
    const hosts = `hosts=${CHECKOUT}&exclude_cdn_cgi=false`;
    // The two statuses are listed side by side, and page reads run beside them: the order varies.
    expect((await calls(mark, zone)).sort()).toEqual(
      [
        'GET /policies',
        `GET /scripts?status=active&${hosts}&page=1&per_page=2`,
        `GET /scripts?status=active&${hosts}&page=2&per_page=2`,
        `GET /scripts?status=active&${hosts}&page=3&per_page=2`,
        `GET /scripts/${idOf('/payment.js')}`,
        // The pages of the violations the policy lists first, which the list gave only the first page of.
        `GET /scripts/${idOf('/elements.js')}`,
        `GET /scripts/${idOf('/x.js')}`,
        `GET /scripts?status=infrequent&${hosts}&page=1&per_page=2`,
        // Connections: listed the same way, no page reads (spec 2.4 gives only the first page).
        `GET /connections?status=active&${hosts}&page=1&per_page=2`,
        `GET /connections?status=active&${hosts}&page=2&per_page=2`,
        `GET /connections?status=infrequent&${hosts}&page=1&per_page=2`,
      ].sort(),
    );
    expect(result.requests).toEqual({
      made: 11,
      bound: 1 + 3 + 1 + 2 + 1 + 2 + 100,
      plan: `zone ${zone}: 1 + 3 (5 active scripts) + 1 (1 infrequent scripts) + 2 (3 active connections) + 1 (1 infrequent connections) + 2 (pages of the violations listed first); at most 100 script reads`,
    });

    // Connections under connect-src: the two it does not name are blocked (violations), the
    // malicious collector it names is allowed; the one of another host is not judged.
    const connections = result.policies[0]!.connections;
    expect(connections.judged).toBe(4);
    expect(connections.notAllowed.lines.map((l) => [l.url, l.status, l.pages])).toEqual([
      ['https://collect.example.net/x', 'active', [`https://${CHECKOUT}/pay`]],
      ['https://rare.example.net/ping', 'infrequent', [`https://${CHECKOUT}/pay`]],
    ]);
    expect(connections.maliciousAllowed.lines.map((l) => [l.url, l.maliciousBecause])).toEqual([
      ['https://skimmer-drop.example.info/c.php', 'domain reported malicious'],
    ]);
    expect(connections.violations).toEqual({ blocks: 2, maliciousAllowed: 1 });
    expect(connections.unusedSources).toEqual([]);

    const [review] = result.policies;
    // The http script on its http page only (seen at the same time: by URL), and Stripe, whose
    // source was removed, on every page it runs on.
    expect(review!.scripts.notAllowed.lines.map((l) => [l.url, l.pages, l.pagesBasis])).toEqual([
      ['http://static.example.org/js/payment.js', [`http://${CHECKOUT}/legacy-pay`], 'all'],
      ['https://js.stripe.com/v3/elements.js', [`https://${CHECKOUT}/pay`, `https://${CHECKOUT}/pay/confirm`], 'all'],
    ]);
    // On its https page the browser blocks it as mixed content: counted apart, no violation.
    expect(review!.scripts.mixedContent.lines.map((l) => [l.url, l.pages, l.pagesBasis])).toEqual([
      ['http://static.example.org/js/payment.js', [`https://${CHECKOUT}/pay`], 'all'],
    ]);
    expect(review!.scripts.newlyBlocked!.lines.map((l) => [l.url, l.pages])).toEqual([
      ['https://js.stripe.com/v3/elements.js', [`https://${CHECKOUT}/pay`, `https://${CHECKOUT}/pay/confirm`]],
    ]);
    expect(review!.scripts.maliciousAllowed.lines.map((l) => l.url)).toEqual(['https://bad.example.info/x.js']);
    expect(review!.scripts.violations).toEqual({ blocks: 2, maliciousAllowed: 1 });
    expect(review!.sourcesAdded).toEqual([
      'connect-src api.stripe.com',
      'connect-src skimmer-drop.example.info',
      'script-src https://bad.example.info/x.js',
    ]);
    expect(review!.sourcesRemoved).toEqual(['script-src js.stripe.com']);
    expect(review!.scripts.judged).toBe(6);
    expect(review!.scripts.notAllowed.lines.find((l) => l.url.includes('rare'))).toBeUndefined();
  });

  test('past the limit of page reads, scripts are judged on their first page and counted', async () => {
    const zone = await newZone();
    await emu.seed({
      // Over http: allowed by 'self' on an http page, mixed content on an https one.
      scripts: [1, 2, 3].map((i) => script(zone, `http://${CHECKOUT}/js/s${i}.js`)),
    });
    const mark = emu.mark();
    const result = await reviewService(client(), input([checkoutPolicy(zone, "script-src 'self'")]), {
      maxPageLookups: 1,
    });
    const reads = (await calls(mark, zone)).filter((call) => /^GET \/scripts\/\w+$/.test(call));
    expect(reads).toHaveLength(1);
    expect(result.policies[0]!.scripts.judgedOnFirstPageOnly).toBe(2);
    // The policies, two script listings, one page read, two connection listings.
    expect(result.requests.made).toBe(1 + 2 + 1 + 2);
    expect(result.requests.bound).toBe(1 + 2 + 1 + 2);
  });

  test('a /cdn-cgi/ script, which the service hides by default, is judged: a policy that blocks it is named for it', async () => {
    const zone = await newZone();
    const challenge = `https://${CHECKOUT}/cdn-cgi/challenge-platform/scripts/jsd/main.js`;
    await emu.seed({
      scripts: [
        script(zone, challenge, { page_urls: [`https://${CHECKOUT}/pay`] }),
        script(zone, 'https://js.stripe.com/v3/elements.js', { page_urls: [`https://${CHECKOUT}/pay`] }),
      ],
    });
    const result = await reviewService(client(), input([checkoutPolicy(zone, 'script-src js.stripe.com')]));
    const [review] = result.policies;
    expect(review!.scripts.judged).toBe(2);
    expect(review!.scripts.notAllowed.lines.map((line) => [line.url, line.pages])).toEqual([
      [challenge, [`https://${CHECKOUT}/pay`]],
    ]);
    expect(review!.scripts.violations.blocks).toBe(1);
  });

  test("the zone's live policies the stack does not manage are headers of their host beside the stack's, from the one list of policies", async () => {
    const zone = await newZone();
    const STRIPE = 'https://js.stripe.com/v3/elements.js';
    const RECAPTCHA = 'https://www.google.com/recaptcha/api.js';
    await emu.seed({
      scripts: [script(zone, `https://${CHECKOUT}/js/payment.js`), script(zone, STRIPE), script(zone, RECAPTCHA)],
    });
    const create = async (action: string, value: string): Promise<string> =>
      (
        await emu.api('POST', `zones/${zone}/${emu.pageSecurity}/policies`, {
          body: {
            description: 'x',
            action,
            expression: `http.host eq "${CHECKOUT}"`,
            enabled: emu.wireEnabled(true),
            value,
          },
        })
      ).body.result.id;
    const value = "script-src 'self' js.stripe.com www.google.com";
    const ours = await create('allow', value);
    // Another team's: an allow policy refusing reCAPTCHA, and a log policy reporting both vendors.
    const theirs = await create('allow', "script-src 'self' js.stripe.com");
    const logged = await create('log', "script-src 'self'");
    // The stack's, deleted by the change: it blocked Stripe and reCAPTCHA.
    const deleted = await create('allow', "script-src 'self'");
    const mark = emu.mark();
    const result = await reviewService(client(), {
      ...input([checkoutPolicy(zone, value, { id: ours })]),
      managedPolicyIds: [ours, deleted],
    });
    const [review] = result.policies;
    expect(review!.hostHeaders).toEqual([
      { policy: { stack: 'checkout' }, effect: 'block' },
      { policy: { live: theirs }, effect: 'block' },
      { policy: { live: logged }, effect: 'report' },
    ]);
    expect(review!.scripts.notAllowed.count).toBe(0);
    expect(review!.scripts.blockedByOthers.lines.map((l) => [l.url, l.blockedBy, l.reportedBy])).toEqual([
      [RECAPTCHA, [{ live: theirs }], [{ live: logged }]],
    ]);
    // Deleted, the stack's policy no longer blocks Stripe; the other team's still blocks reCAPTCHA.
    expect(review!.scripts.newlyAllowed!.lines.map((l) => [l.url, l.reportedBy])).toEqual([
      [STRIPE, [{ live: logged }]],
    ]);
    expect(review!.scripts.newlyBlocked!.count).toBe(0);
    expect(review!.scripts.violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
    // The live policies came with the one request for the baselines.
    expect((await calls(mark, zone)).filter((call) => call.startsWith('GET /policies'))).toEqual(['GET /policies']);

    // Not told which it manages, the review takes the one it replaces as its own, and the deleted one as staying.
    const told = await reviewService(client(), input([checkoutPolicy(zone, value, { id: ours })]));
    expect(told.policies[0]!.scripts.blockedByOthers.lines.map((l) => [l.url, l.blockedBy])).toEqual([
      [STRIPE, [{ live: deleted }]],
      [RECAPTCHA, [{ live: theirs }, { live: deleted }]],
    ]);
  });

  test('a created policy is compared with nothing; an unknown baseline says why', async () => {
    const zone = await newZone();
    await emu.seed({ scripts: [script(zone, 'https://cdn.example.net/a.js')] });
    const result = await reviewService(
      client(),
      input([
        checkoutPolicy(zone, "script-src 'self'"),
        { ...checkoutPolicy(zone, "script-src 'self'"), key: 'urn:other', replaces: { unknown: 'no state given' } },
      ]),
    );
    expect(result.policies.map((p) => [p.baseline, p.scripts.newlyBlocked?.count ?? null])).toEqual([
      ['none', 1],
      [{ unknown: 'no state given' }, null],
    ]);
  });

  test('the pools of a migrated account that no notification covers', async () => {
    const account = randomBytes(16).toString('hex');
    await emu.seed({
      accounts: [{ id: account, name: 'Pools' }],
      pools: ['eu-1', 'eu-2', 'us-1'].map((name) => ({
        account_id: account,
        name,
        notification_email: 'noc@example.com',
      })),
    });
    const pools = (await emu.api('GET', `accounts/${account}/load_balancers/pools`)).body.result as Array<{
      id: string;
      name: string;
    }>;
    const id = (name: string) => pools.find((pool) => pool.name === name)!.id;
    const mark = emu.mark();
    const result = await reviewService(client(), {
      policies: [],
      migrations: [{ key: 'urn:migration', name: 'retire-emails', accountId: account }],
      notifications: [
        { accountId: account, poolIds: [id('eu-1')], enabled: true },
        // A disabled notification alerts nobody.
        { accountId: account, poolIds: [id('eu-2')], enabled: false },
      ],
    });
    expect(result.pools).toEqual([
      {
        key: 'urn:migration',
        name: 'retire-emails',
        accountId: account,
        pools: 3,
        uncovered: { count: 2, names: ['eu-2', 'us-1'] },
      },
    ]);
    expect(await emu.requests(mark)).toHaveLength(1);
  });
});

test('a refused token fails the review with the API error', async () => {
  const zone = await newZone();
  const refused = clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: 'not-a-token-the-emulator-knows' } });
  await expect(reviewService(refused, input([checkoutPolicy(zone, "script-src 'self'")]))).rejects.toThrow(
    AuthenticationError,
  );
});
