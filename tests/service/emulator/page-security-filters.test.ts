import { startTestEmulator, type Reply, type TestEmulator } from '../../helpers/emulator';

/**
 * The filters of the lists of detected scripts and connections over HTTP (contract, "Page
 * security"): `page_url`, `urls`, `exclude_urls`, `hosts` with patterns, `exclude_cdn_cgi`,
 * `order_by` with `direction`, `prioritize_malicious`; each applied before paging, `result_info`
 * counting what is left, and an unknown value a 400 naming the parameter. Each test seeds a zone of
 * its own.
 */

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

const SCRIPTS = [
  {
    url: 'https://js.pay.example/card.js',
    first_seen_at: '2026-01-03T00:00:00.000Z',
    last_seen_at: '2026-03-01T00:00:00.000Z',
    page_urls: ['https://shop.example.com/', 'https://Shop.Example.com/Checkout/pay?step=2#card'],
  },
  {
    url: 'https://cdn.example.net/lib.js',
    first_seen_at: '2026-01-01T00:00:00.000Z',
    last_seen_at: '2026-01-05T00:00:00.000Z',
    page_urls: ['https://shop.example.com/checkout'],
  },
  {
    url: 'https://shop.example.com/cdn-cgi/challenge-platform/main.js',
    first_seen_at: '2026-01-02T00:00:00.000Z',
    last_seen_at: '2026-02-01T00:00:00.000Z',
    page_urls: ['https://shop.example.com/checkout/pay'],
  },
  {
    url: 'https://skim.example.org/x.js',
    first_seen_at: '2026-01-04T00:00:00.000Z',
    last_seen_at: '2026-01-04T00:00:00.000Z',
    js_integrity_score: 4,
    page_urls: ['https://blog.example.com/post/1'],
  },
  {
    url: 'https://ads.example.org/tag.js',
    first_seen_at: '2026-01-05T00:00:00.000Z',
    last_seen_at: '2026-04-01T00:00:00.000Z',
    url_reported_malicious: true,
    page_urls: ['https://www.example.com/checkout-old'],
  },
];

const CARD = SCRIPTS[0]!.url;
const LIB = SCRIPTS[1]!.url;
const CDN_CGI = SCRIPTS[2]!.url;
const SKIM = SCRIPTS[3]!.url;
const ADS = SCRIPTS[4]!.url;

async function list(zone: string, kind: 'scripts' | 'connections', query: Record<string, string | number>) {
  const reply = await emu.api('GET', `zones/${zone}/page_security/${kind}`, { query });
  expect(reply.status).toBe(200);
  return reply;
}
const urls = (reply: Reply) => (reply.body.result as Array<{ url: string }>).map((item) => item.url);

describe('detected scripts', () => {
  let zone: string;
  beforeAll(async () => {
    zone = await emu.zoneWithScripts(SCRIPTS);
  });
  const scripts = (query: Record<string, string | number>) => list(zone, 'scripts', query);

  test('without filters: the usual order (first_seen_at), /cdn-cgi/ left out; exclude_cdn_cgi=false keeps it', async () => {
    const plain = await scripts({});
    expect(urls(plain)).toEqual([LIB, CARD, SKIM, ADS]);
    expect(plain.body.result_info.total_count).toBe(4);
    expect(urls(await scripts({ exclude_cdn_cgi: 'true' }))).toEqual([LIB, CARD, SKIM, ADS]);
    expect(urls(await scripts({ exclude_cdn_cgi: 'false' }))).toEqual([LIB, CDN_CGI, CARD, SKIM, ADS]);
  });

  test('page_url: any page of the item matched whole, without scheme, query and fragment, * any run, case-insensitive', async () => {
    const pages = async (page_url: string) => urls(await scripts({ page_url, exclude_cdn_cgi: 'false' }));
    // Exactly that page: the query and fragment of a page seen are not part of it, nor is its case.
    expect(await pages('shop.example.com/checkout/pay')).toEqual([CDN_CGI, CARD]);
    expect(await pages('shop.example.com/checkout')).toEqual([LIB]);
    // Matched whole: a pattern is not a prefix.
    expect(await pages('shop.example.com/check')).toEqual([]);
    expect(await pages('shop.example.com/checkout/*')).toEqual([CDN_CGI, CARD]);
    expect(await pages('shop.example.com/checkout*')).toEqual([LIB, CDN_CGI, CARD]);
    expect(await pages('*/checkout*')).toEqual([LIB, CDN_CGI, CARD, ADS]);
    // A script seen on several pages matches by any of them: the card script by the host's root.
    expect(await pages('SHOP.example.com/')).toEqual([CARD]);
    // Several patterns: any of them; empty items are ignored.
    expect(await pages('blog.example.com/*,,www.example.com/checkout-old')).toEqual([SKIM, ADS]);
    const counted = await scripts({ page_url: 'shop.example.com/*', per_page: 1, page: 2 });
    expect(urls(counted)).toEqual([CARD]);
    expect(counted.body.result_info).toEqual({ page: 2, per_page: 1, count: 1, total_count: 2, total_pages: 2 });
  });

  test('urls keeps and exclude_urls leaves out the items whose URL contains one part, case-insensitively', async () => {
    expect(urls(await scripts({ urls: 'EXAMPLE.ORG' }))).toEqual([SKIM, ADS]);
    expect(urls(await scripts({ urls: 'card.js,lib.js' }))).toEqual([LIB, CARD]);
    expect(urls(await scripts({ exclude_urls: 'example.org,/LIB' }))).toEqual([CARD]);
    expect(urls(await scripts({ urls: 'example', exclude_urls: 'skim' }))).toEqual([LIB, CARD, ADS]);
  });

  test('hosts: names or * patterns matched whole against the host, case-insensitively', async () => {
    expect(urls(await scripts({ hosts: 'SHOP.example.com' }))).toEqual([LIB, CARD]);
    expect(urls(await scripts({ hosts: '*.example.com' }))).toEqual([LIB, CARD, SKIM, ADS]);
    expect(urls(await scripts({ hosts: 'b*,www.example.com' }))).toEqual([SKIM, ADS]);
    // Whole: a pattern is not a part.
    expect(urls(await scripts({ hosts: 'example.com' }))).toEqual([]);
    expect(urls(await scripts({ hosts: 'shop*' }))).toEqual([LIB, CARD]);
  });

  test('order_by first_seen_at or last_seen_at, asc by default or desc', async () => {
    expect(urls(await scripts({ order_by: 'last_seen_at' }))).toEqual([SKIM, LIB, CARD, ADS]);
    expect(urls(await scripts({ order_by: 'last_seen_at', direction: 'desc' }))).toEqual([ADS, CARD, LIB, SKIM]);
    expect(urls(await scripts({ order_by: 'first_seen_at', direction: 'desc' }))).toEqual([ADS, SKIM, CARD, LIB]);
    expect(urls(await scripts({ order_by: 'first_seen_at', direction: 'asc' }))).toEqual([LIB, CARD, SKIM, ADS]);
  });

  test('prioritize_malicious: a score below 10 or a URL reported malicious first, each part in the order asked', async () => {
    expect(urls(await scripts({ prioritize_malicious: 'true' }))).toEqual([SKIM, ADS, LIB, CARD]);
    expect(urls(await scripts({ prioritize_malicious: 'false' }))).toEqual([LIB, CARD, SKIM, ADS]);
    expect(urls(await scripts({ prioritize_malicious: 'true', order_by: 'last_seen_at', direction: 'desc' }))).toEqual([
      ADS,
      SKIM,
      CARD,
      LIB,
    ]);
  });

  test('filters combine, before paging', async () => {
    const query = {
      page_url: '*/checkout*',
      exclude_cdn_cgi: 'false',
      exclude_urls: 'ads',
      order_by: 'last_seen_at',
      direction: 'desc',
      per_page: 2,
    };
    const reply = await scripts(query);
    expect(urls(reply)).toEqual([CARD, CDN_CGI]);
    expect(reply.body.result_info).toEqual({ page: 1, per_page: 2, count: 2, total_count: 3, total_pages: 2 });
    expect(urls(await scripts({ ...query, page: 2 }))).toEqual([LIB]);
  });

  test('the filters narrow the other status as well', async () => {
    const rare = await emu.zoneWithScripts([
      { url: 'https://a.example/1.js', status: 'infrequent', page_urls: ['https://shop.example.com/pay'] },
      { url: 'https://a.example/2.js', status: 'infrequent', page_urls: ['https://shop.example.com/'] },
    ]);
    expect(urls(await list(rare, 'scripts', { status: 'infrequent', page_url: 'shop.example.com/pay' }))).toEqual([
      'https://a.example/1.js',
    ]);
  });
});

describe('detected connections', () => {
  test('page_url by first_page_url; urls, hosts, exclude_cdn_cgi, order and malicious first as for scripts', async () => {
    const zone = await emu.zoneWithScripts([]);
    await emu.seed({
      connections: [
        {
          zone_id: zone,
          url: 'https://api.pay.example/tokens',
          first_page_url: 'https://shop.example.com/checkout/pay?x=1',
          first_seen_at: '2026-01-01T00:00:00.000Z',
          last_seen_at: '2026-05-01T00:00:00.000Z',
        },
        {
          zone_id: zone,
          url: 'https://shop.example.com/cdn-cgi/rum',
          first_page_url: 'https://shop.example.com/checkout/pay',
          first_seen_at: '2026-01-02T00:00:00.000Z',
        },
        {
          zone_id: zone,
          url: 'https://collect.bad.example/c',
          first_page_url: 'https://blog.example.com/',
          first_seen_at: '2026-01-03T00:00:00.000Z',
          last_seen_at: '2026-01-03T00:00:00.000Z',
          domain_reported_malicious: true,
        },
      ],
    });
    const connections = async (query: Record<string, string | number>) => urls(await list(zone, 'connections', query));
    expect(await connections({})).toEqual(['https://api.pay.example/tokens', 'https://collect.bad.example/c']);
    expect(await connections({ exclude_cdn_cgi: 'false', page_url: 'shop.example.com/checkout/pay' })).toEqual([
      'https://api.pay.example/tokens',
      'https://shop.example.com/cdn-cgi/rum',
    ]);
    expect(await connections({ page_url: '*/CHECKOUT/*' })).toEqual(['https://api.pay.example/tokens']);
    expect(await connections({ urls: 'bad' })).toEqual(['https://collect.bad.example/c']);
    expect(await connections({ exclude_urls: 'bad' })).toEqual(['https://api.pay.example/tokens']);
    expect(await connections({ hosts: 'blog.*' })).toEqual(['https://collect.bad.example/c']);
    expect(await connections({ order_by: 'last_seen_at', direction: 'desc' })).toEqual([
      'https://api.pay.example/tokens',
      'https://collect.bad.example/c',
    ]);
    expect(await connections({ prioritize_malicious: 'true' })).toEqual([
      'https://collect.bad.example/c',
      'https://api.pay.example/tokens',
    ]);
  });
});

describe('an unknown value is a 400 naming the parameter', () => {
  const cases: Array<[string, string]> = [
    ['order_by', 'size'],
    ['direction', 'up'],
    ['exclude_cdn_cgi', 'maybe'],
    ['prioritize_malicious', 'yes'],
  ];
  test.each(cases)('%s=%s on scripts and connections', async (parameter, value) => {
    const zone = await emu.zoneWithScripts(SCRIPTS);
    for (const kind of ['scripts', 'connections']) {
      const reply = await emu.api('GET', `zones/${zone}/page_security/${kind}`, { query: { [parameter]: value } });
      expect(reply.status).toBe(400);
      expect(reply.body.success).toBe(false);
      expect(reply.body.errors[0].message).toMatch(new RegExp(`^${parameter}: must be one of .*\\(got "${value}"\\)`));
    }
  });

  test('a parameter given twice is a 400 naming it', async () => {
    const zone = await emu.zoneWithScripts(SCRIPTS);
    const reply = await emu.api('GET', `zones/${zone}/page_security/scripts?page_url=a&page_url=b`);
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].message).toMatch(/^page_url: /);
  });
});
