/**
 * The generator of the browser truth's cases: seeded and deterministic, so the recorded truth and
 * the browser test's sample name the same cases. Each scenario below is one class of case: pages,
 * sets of policies and URLs near the boundary the class is about; a scenario's cases are the
 * product of its parts, sampled by the seed down to its count when the product is larger.
 *
 * Policies use only what the service accepts (../shared/spec/contract.md, "Page security"). In a
 * policy template `{d}` stands for the directive that governs the load: `script-src` for a script,
 * `connect-src` for a connection.
 */

import type { LoadKind } from './observe';
import { mulberry32 } from '../../emulator/core/faults';

/** The seed the recorded truth was generated with. */
export const TRUTH_SEED = 1;

/** One generated case, as the truth file records it (without the browsers' verdicts). */
export interface TruthCase {
  id: string;
  class: string;
  page: string;
  /** The enforced `Content-Security-Policy` header values, one or more. */
  policies: string[];
  /** The `Content-Security-Policy-Report-Only` header values, often none. */
  reportOnly: string[];
  kind: LoadKind;
  url: string;
}

/** A set of headers of one page: enforced policies and report-only ones, as templates. */
interface PolicySet {
  policies: string[];
  reportOnly?: string[];
}

interface Scenario {
  class: string;
  pages: string[];
  policySets: PolicySet[];
  kinds: LoadKind[];
  urls: string[];
  /** At most this many cases; the seed picks which when the product is larger. */
  count: number;
}

const PAGE_PATH = '/shop/checkout.html';
const HTTP_PAGE = `http://site.test${PAGE_PATH}`;
const HTTPS_PAGE = `https://site.test${PAGE_PATH}`;
const HTTP_8080_PAGE = `http://site.test:8080${PAGE_PATH}`;
const HTTPS_8443_PAGE = `https://site.test:8443${PAGE_PATH}`;
const HTTPS_8080_PAGE = `https://site.test:8080${PAGE_PATH}`;
const HTTP_IP_PAGE = `http://127.0.0.1:8080${PAGE_PATH}`;
const HTTPS_IP_PAGE = `https://127.0.0.1:8443${PAGE_PATH}`;

const SCHEMES = ['http', 'https', 'ws', 'wss'] as const;
/** Ports a URL is written with; `''` is none (the scheme's default), `80`/`443` the defaults written out or crossed. */
const PORTS = ['', '80', '443', '8080', '8443'] as const;

/** Every URL of the given parts; a port equal to the scheme's default is written out as given. */
function urls(
  schemes: readonly string[],
  hosts: readonly string[],
  ports: readonly string[],
  paths: readonly string[],
) {
  const all: string[] = [];
  for (const scheme of schemes) {
    for (const host of hosts) {
      for (const port of ports) {
        for (const path of paths) {
          all.push(`${scheme}://${host}${port === '' ? '' : `:${port}`}${path}`);
        }
      }
    }
  }
  return all;
}

/** One policy per source: `{d} <source>`. */
function each(...sources: string[]): PolicySet[] {
  return sources.map((source) => ({ policies: [`{d} ${source}`] }));
}

const SITE_AND_OTHERS = ['site.test', 'cdn.test', 'a.cdn.test', 'other.test'];
/** A host, its subdomains one and two levels deep, and a look-alike that ends with its name. */
const CDN_FAMILY = ['cdn.test', 'a.cdn.test', 'b.a.cdn.test', 'xcdn.test', 'other.test'];
/** The SHA-256 of the server's script body `void 0;\n`: a hash source that matches no external script without `integrity`. */
const SCRIPT_HASH = "'sha256-kD3gc3/10DXo3izfRwDlKm92sK2bP+vsWq8JJyWmZPc='";

/**
 * Source pool of the random source lists of the `source-list` class. No `'none'`: the service
 * refuses it beside other sources, and the class `none` has it alone.
 */
const SOURCE_POOL = [
  "'self'",
  "'unsafe-inline'",
  '*',
  'https:',
  'http:',
  'wss:',
  'ws:',
  'cdn.test',
  '*.cdn.test',
  'https://cdn.test',
  'http://cdn.test',
  'wss://cdn.test',
  'cdn.test:8080',
  'cdn.test:*',
  'https://cdn.test:8443',
  'cdn.test/js/',
  'https://a.cdn.test/js/a.js',
  'other.test',
  '127.0.0.1',
  'http://127.0.0.1:8080',
];

const SCENARIOS: Scenario[] = [
  {
    class: 'self',
    pages: [HTTP_PAGE, HTTPS_PAGE, HTTP_8080_PAGE, HTTPS_8443_PAGE, HTTPS_8080_PAGE],
    policySets: each("'self'"),
    kinds: ['script', 'connection'],
    urls: [
      ...urls(SCHEMES, ['site.test'], PORTS, ['/js/a.js']),
      ...urls(SCHEMES, ['other.test', 'a.site.test'], [''], ['/a.js']),
    ],
    count: 180,
  },
  {
    class: 'self-ip',
    pages: [HTTP_IP_PAGE, HTTPS_IP_PAGE],
    policySets: each("'self'"),
    kinds: ['script', 'connection'],
    urls: [
      ...urls(SCHEMES, ['127.0.0.1'], PORTS, ['/js/a.js']),
      ...urls(SCHEMES, ['site.test'], ['8080', '8443'], ['/a.js']),
    ],
    count: 84,
  },
  {
    class: 'none',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each("'none'"),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['site.test', 'cdn.test', '127.0.0.1'], ['', '8080'], ['/a.js']),
    count: 40,
  },
  {
    class: 'keyword-alone',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each("'unsafe-inline'", "'unsafe-eval'", SCRIPT_HASH, "'unsafe-inline' 'unsafe-eval'"),
    kinds: ['script', 'connection'],
    urls: urls(['https', 'wss'], ['site.test', 'cdn.test'], [''], ['/a.js']),
    count: 48,
  },
  {
    class: 'star',
    pages: [HTTP_PAGE, HTTPS_PAGE, HTTPS_8443_PAGE],
    policySets: each('*'),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['site.test', 'cdn.test', 'a.cdn.test', '127.0.0.1'], ['', '8080', '8443'], ['/js/a.js']),
    count: 100,
  },
  {
    class: 'scheme',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each('http:', 'https:', 'ws:', 'wss:', 'https: wss:'),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['cdn.test', '127.0.0.1'], ['', '8443'], ['/js/a.js']),
    count: 170,
  },
  {
    class: 'host-exact',
    pages: [HTTP_PAGE, HTTPS_PAGE, HTTPS_8443_PAGE],
    policySets: each('cdn.test', 'a.cdn.test'),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, CDN_FAMILY, [''], ['/js/a.js']),
    count: 150,
  },
  {
    class: 'host-wildcard',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each('*.cdn.test', '*.a.cdn.test', 'https://*.cdn.test', '*.cdn.test cdn.test', 'wss://*.cdn.test'),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, CDN_FAMILY.slice(0, 4), [''], ['/js/a.js']),
    count: 180,
  },
  {
    class: 'host-scheme',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each('https://cdn.test', 'http://cdn.test', 'ws://cdn.test', 'wss://cdn.test'),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['cdn.test'], PORTS, ['/js/a.js']),
    count: 170,
  },
  {
    class: 'port-default',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each(
      'cdn.test:80',
      'cdn.test:443',
      'http://cdn.test:80',
      'https://cdn.test:443',
      'https://cdn.test:80',
      'http://cdn.test:443',
      'wss://cdn.test:443',
    ),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['cdn.test'], ['', '80', '443', '8080'], ['/js/a.js']),
    count: 180,
  },
  {
    class: 'port-explicit',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each(
      'cdn.test:8080',
      'https://cdn.test:8443',
      'http://cdn.test:8080',
      'https://cdn.test:8080',
      'wss://cdn.test:8443',
      'ws://cdn.test:8080',
    ),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['cdn.test'], ['', '8080', '8443'], ['/js/a.js']),
    count: 140,
  },
  {
    class: 'port-star',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each('cdn.test:*', 'https://cdn.test:*', '*.cdn.test:*', 'http://*.cdn.test:*', 'wss://cdn.test:*'),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['cdn.test', 'a.cdn.test'], ['', '8080', '8443'], ['/js/a.js']),
    count: 130,
  },
  {
    class: 'port-page',
    pages: [HTTP_8080_PAGE, HTTPS_8443_PAGE, HTTPS_8080_PAGE],
    policySets: each('site.test', 'cdn.test', 'https://site.test', 'site.test:8443', 'site.test:8080'),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['site.test', 'cdn.test'], ['', '8080', '8443'], ['/js/a.js']),
    count: 150,
  },
  {
    class: 'path-file',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each('cdn.test/js/a.js', 'https://cdn.test/js/a.js', 'cdn.test/a.js'),
    kinds: ['script', 'connection'],
    urls: urls(
      ['https', 'wss'],
      ['cdn.test'],
      [''],
      [
        '/js/a.js',
        '/js/a.jsx',
        '/js/a.js/',
        '/js/a.js/b.js',
        '/js/b.js',
        '/js/A.js',
        '/JS/a.js',
        '/a.js',
        '/js/%61.js',
        '/js/a%2Ejs',
      ],
    ),
    count: 120,
  },
  {
    class: 'path-directory',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each('cdn.test/js/', 'https://cdn.test/js/', '*.cdn.test/js/'),
    kinds: ['script', 'connection'],
    urls: urls(
      ['https', 'wss'],
      ['cdn.test', 'a.cdn.test'],
      [''],
      ['/js/', '/js/a.js', '/js/sub/a.js', '/js', '/jsx/a.js', '/a.js', '/JS/a.js', '/js%2Fa.js', '/j%73/a.js'],
    ),
    count: 120,
  },
  {
    class: 'path-directory-no-slash',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each('cdn.test/js', 'https://cdn.test/js', 'cdn.test/js/sub'),
    kinds: ['script', 'connection'],
    urls: urls(
      ['https', 'wss'],
      ['cdn.test'],
      [''],
      ['/js', '/js/', '/js/a.js', '/jsx', '/js/sub', '/js/sub/', '/js/sub/a.js'],
    ),
    count: 100,
  },
  {
    class: 'path-percent',
    pages: [HTTPS_PAGE],
    policySets: each(
      'cdn.test/j%73/',
      'cdn.test/js/%61.js',
      'cdn.test/a%20b/',
      'cdn.test/%7Euser/',
      'cdn.test/%7euser/',
    ),
    kinds: ['script', 'connection'],
    urls: urls(
      ['https'],
      ['cdn.test'],
      [''],
      [
        '/js/a.js',
        '/j%73/a.js',
        '/js/%61.js',
        '/a%20b/x.js',
        '/a b/x.js',
        '/~user/a.js',
        '/%7Euser/a.js',
        '/%7euser/a.js',
      ],
    ),
    count: 80,
  },
  {
    class: 'path-case',
    pages: [HTTPS_PAGE],
    policySets: each('cdn.test/JS/', 'cdn.test/Js/A.js', 'CDN.test/js/'),
    kinds: ['script', 'connection'],
    urls: urls(['https'], ['cdn.test', 'CDN.TEST'], [''], ['/JS/a.js', '/js/a.js', '/Js/A.js', '/js/A.js', '/Js/a.js']),
    count: 60,
  },
  {
    class: 'path-wildcard-host',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each('https://*/js/', '*/js/', 'https://*.cdn.test/js/a.js', 'https://*:*/js/'),
    kinds: ['script', 'connection'],
    urls: urls(['https', 'http', 'wss'], ['cdn.test', 'a.cdn.test', 'site.test'], ['', '8443'], ['/js/a.js', '/a.js']),
    count: 100,
  },
  {
    class: 'upper-case',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: each('CDN.TEST', 'HTTPS://CDN.test', '*.CDN.Test', 'HTTPS:', 'WSS://Cdn.Test', 'Cdn.Test:8080', 'WS:'),
    kinds: ['script', 'connection'],
    urls: urls(['https', 'http', 'WSS', 'ws'], ['cdn.test', 'A.CDN.TEST', 'Cdn.Test'], ['', '8080'], ['/js/a.js']),
    count: 100,
  },
  {
    class: 'ip-host',
    pages: [HTTP_PAGE, HTTPS_PAGE, HTTP_IP_PAGE],
    policySets: each('127.0.0.1', 'http://127.0.0.1:8080', 'https://127.0.0.1', '127.0.0.1:*', 'ws://127.0.0.1:8080'),
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['127.0.0.1'], ['', '8080', '8443'], ['/js/a.js']),
    count: 140,
  },
  {
    class: 'default-src',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: [
      { policies: ['default-src cdn.test'] },
      { policies: ["default-src 'self'"] },
      { policies: ['default-src https://cdn.test wss://cdn.test'] },
      { policies: ["default-src 'none'"] },
    ],
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['site.test', 'cdn.test', 'other.test'], [''], ['/js/a.js']),
    count: 100,
  },
  {
    class: 'default-src-overridden',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: [
      { policies: ['script-src cdn.test; default-src other.test'] },
      { policies: ['connect-src cdn.test; default-src other.test'] },
      { policies: ["default-src 'none'; script-src 'self'"] },
      { policies: ["default-src 'none'; connect-src 'self'"] },
    ],
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['site.test', 'cdn.test', 'other.test'], [''], ['/js/a.js']),
    count: 100,
  },
  {
    class: 'other-directive-only',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: [
      { policies: ['script-src cdn.test'] },
      { policies: ['connect-src cdn.test'] },
      { policies: ["img-src 'none'"] },
      { policies: ["img-src 'self'; script-src 'none'"] },
    ],
    kinds: ['script', 'connection'],
    urls: urls(['https', 'wss', 'http'], ['site.test', 'cdn.test', 'other.test'], [''], ['/js/a.js']),
    count: 70,
  },
  {
    class: 'upgrade-insecure-requests',
    pages: [HTTP_PAGE, HTTPS_PAGE, HTTP_8080_PAGE],
    policySets: [
      { policies: ['upgrade-insecure-requests; {d} https://cdn.test'] },
      { policies: ['upgrade-insecure-requests; {d} http://cdn.test'] },
      { policies: ['upgrade-insecure-requests; {d} cdn.test'] },
      { policies: ['upgrade-insecure-requests; {d} https: wss:'] },
      { policies: ['upgrade-insecure-requests; {d} wss://cdn.test ws://cdn.test:8080'] },
      { policies: ["upgrade-insecure-requests; {d} 'self'"] },
      { policies: ['upgrade-insecure-requests', '{d} cdn.test:80 cdn.test:8080'] },
      { policies: ['upgrade-insecure-requests', '{d} https://cdn.test:8080 127.0.0.1:*'] },
    ],
    kinds: ['script', 'connection'],
    urls: [
      ...urls(['http', 'ws'], ['cdn.test', 'site.test', '127.0.0.1'], ['', '80', '8080'], ['/js/a.js']),
      ...urls(['https', 'wss'], ['cdn.test'], [''], ['/js/a.js']),
    ],
    count: 260,
  },
  {
    class: 'upgrade-insecure-requests-report-only',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: [
      { policies: ['{d} https://cdn.test http://site.test'], reportOnly: ['upgrade-insecure-requests'] },
      { policies: ['{d} *'], reportOnly: ['upgrade-insecure-requests; {d} https:'] },
    ],
    kinds: ['script', 'connection'],
    urls: urls(['http', 'ws', 'https'], ['cdn.test', 'site.test'], [''], ['/js/a.js']),
    count: 40,
  },
  {
    class: 'mixed-content',
    pages: [HTTPS_PAGE, HTTPS_8443_PAGE],
    policySets: [
      ...each('*', 'http: ws: https: wss:', 'http://cdn.test ws://cdn.test http://127.0.0.1:*', "'self'"),
      { policies: ['default-src *'] },
    ],
    kinds: ['script', 'connection'],
    urls: [
      ...urls(['http', 'ws'], ['cdn.test', 'site.test', '127.0.0.1'], ['', '8080'], ['/js/a.js']),
      ...urls(['https', 'wss'], ['cdn.test'], [''], ['/js/a.js']),
    ],
    count: 110,
  },
  {
    class: 'two-policies',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: [
      { policies: ['{d} cdn.test other.test', '{d} *.cdn.test cdn.test'] },
      { policies: ['{d} https:', "{d} 'self'"] },
      { policies: ['default-src *', '{d} cdn.test'] },
      { policies: ['{d} *', "{d} 'none'"] },
      { policies: ['{d} https://cdn.test', '{d} cdn.test:*', 'default-src *.cdn.test cdn.test'] },
    ],
    kinds: ['script', 'connection'],
    urls: urls(SCHEMES, ['site.test', 'cdn.test', 'a.cdn.test', 'other.test'], ['', '8443'], ['/js/a.js']),
    count: 140,
  },
  {
    class: 'report-only',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: [
      { policies: ['{d} *'], reportOnly: ['{d} cdn.test'] },
      { policies: ["img-src 'none'"], reportOnly: ["{d} 'self'"] },
      { policies: ['{d} cdn.test other.test'], reportOnly: ["{d} 'none'"] },
      { policies: ['{d} *'], reportOnly: ['{d} https:', '{d} *.cdn.test'] },
    ],
    kinds: ['script', 'connection'],
    urls: urls(['https', 'wss', 'http'], SITE_AND_OTHERS, [''], ['/js/a.js']),
    count: 120,
  },
  {
    class: 'websocket',
    pages: [HTTP_PAGE, HTTPS_PAGE],
    policySets: [
      ...each(
        "'self'",
        'https:',
        'http:',
        'https://cdn.test',
        'http://cdn.test',
        'wss://cdn.test',
        'ws://cdn.test',
        'cdn.test',
        'https://cdn.test:8443',
      ),
      { policies: ['default-src https://cdn.test'] },
    ],
    kinds: ['connection'],
    urls: urls(['ws', 'wss'], ['site.test', 'cdn.test'], ['', '8080', '8443'], ['/socket']),
    count: 200,
  },
];

/** A source list of 2 to 4 sources drawn from {@link SOURCE_POOL}. */
function randomSourceList(random: () => number): string {
  const count = 2 + Math.floor(random() * 3);
  const picked = new Set<string>();
  while (picked.size < count) {
    picked.add(SOURCE_POOL[Math.floor(random() * SOURCE_POOL.length)]!);
  }
  return [...picked].join(' ');
}

/** The `source-list` class: random lists of sources against URLs across hosts, schemes and ports. */
function sourceListScenario(random: () => number): Scenario {
  return {
    class: 'source-list',
    pages: [HTTP_PAGE, HTTPS_PAGE, HTTPS_8443_PAGE],
    policySets: Array.from({ length: 12 }, () => ({ policies: [`{d} ${randomSourceList(random)}`] })),
    kinds: ['script', 'connection'],
    urls: urls(
      SCHEMES,
      ['site.test', 'cdn.test', 'a.cdn.test', '127.0.0.1'],
      ['', '8080', '8443'],
      ['/js/a.js', '/a.js'],
    ),
    count: 200,
  };
}

/** The directive governing a load of this kind, for `{d}` in policy templates. */
const DIRECTIVE: Readonly<Record<LoadKind, string>> = { script: 'script-src', connection: 'connect-src' };

/** WebSocket URLs are connections only: a `<script src>` cannot load them. */
function loadable(kind: LoadKind, url: string): boolean {
  return kind === 'connection' || !/^wss?:/i.test(url);
}

/**
 * The cases of the truth for a seed: every scenario's product of pages, policy sets, kinds and
 * URLs, sampled to its count, in a stable order; ids `c0001`, `c0002`, ...
 */
export function generateCases(seed: number = TRUTH_SEED): TruthCase[] {
  const random = mulberry32(seed);
  const cases: Omit<TruthCase, 'id'>[] = [];
  for (const scenario of [...SCENARIOS, sourceListScenario(random)]) {
    const product: Omit<TruthCase, 'id'>[] = [];
    for (const page of scenario.pages) {
      for (const set of scenario.policySets) {
        for (const kind of scenario.kinds) {
          const fill = (template: string) => template.replaceAll('{d}', DIRECTIVE[kind]);
          for (const url of scenario.urls.filter((candidate) => loadable(kind, candidate))) {
            product.push({
              class: scenario.class,
              page,
              policies: set.policies.map(fill),
              reportOnly: (set.reportOnly ?? []).map(fill),
              kind,
              url,
            });
          }
        }
      }
    }
    // A partial Fisher-Yates shuffle picks the sample; the picked cases keep the product's order,
    // so the cases of one page stay together.
    const indexes = product.map((_, index) => index);
    const take = Math.min(scenario.count, product.length);
    for (let i = 0; i < take; i++) {
      const j = i + Math.floor(random() * (indexes.length - i));
      [indexes[i], indexes[j]] = [indexes[j]!, indexes[i]!];
    }
    for (const index of indexes.slice(0, take).sort((a, b) => a - b)) {
      cases.push(product[index]!);
    }
  }
  return cases.map((entry, index) => ({ id: `c${String(index + 1).padStart(4, '0')}`, ...entry }));
}
