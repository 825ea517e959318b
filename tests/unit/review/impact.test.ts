import {
  acceptBlocked,
  acceptMalicious,
  completePages,
  connectionReports,
  ZoneImpactEvaluator,
  type Baseline,
  type Detected,
  type DetectedLine,
  type EvaluatorOptions,
  type LivePolicy,
  type PolicyText,
  type ProposedPolicy,
  type ZonePolicies,
} from '../../../provider/impact/evaluate';
import { impactText } from '../../../provider/format/review-text';
import { isCreatedOrChanged } from '../../../provider/impact/model';
import { renderMarkdown } from '../../../provider/format/review-markdown';
import { reviewReport } from '../../helpers/review-report';

/**
 * The impact evaluator (issue 9, item 1) on a fixed set of scripts detected on checkout pages:
 * every kind of CSP source, active and infrequent scripts, the malicious rule at 9, 10 and 11,
 * and the comparison with the live policy. Expectations are exact.
 */

const HOST = 'checkout.example.com';
const PAGE = `https://${HOST}/pay`;

function script(
  url: string,
  lastSeenAt: string,
  extra: Partial<Detected> = {},
): Detected & { jsIntegrityScore?: number } {
  return { id: url, url, status: 'active', firstPageUrl: PAGE, lastSeenAt, jsIntegrityScore: 50, ...extra };
}

const FIRST_PARTY = script(`https://${HOST}/js/payment.js`, '2026-11-20T10:00:00.000Z');
const STRIPE = script('https://js.stripe.com/v3/fingerprinted/js/elements.js', '2026-11-20T09:00:00.000Z');
const STRIPE_NETWORK = script('https://m.stripe.network/inner.js', '2026-11-20T08:00:00.000Z');
const ON_PORT = script('https://cdn.example.net:8443/widget.js', '2026-11-19T12:00:00.000Z', { status: 'infrequent' });
const OVER_HTTP = script('http://legacy.example.org/old.js', '2026-11-18T12:00:00.000Z');
const RECAPTCHA = script('https://www.google.com/recaptcha/api.js', '2026-11-20T07:00:00.000Z');
/** The malicious rule's edge (spec 1.2, 8): below 10 is malicious, 10 and 11 are not. */
const SCORE_9 = script('https://score9.example.info/a.js', '2026-11-17T00:00:00.000Z', { jsIntegrityScore: 9 });
const SCORE_10 = script('https://score10.example.info/a.js', '2026-11-16T00:00:00.000Z', { jsIntegrityScore: 10 });
const SCORE_11 = script('https://score11.example.info/a.js', '2026-11-15T00:00:00.000Z', { jsIntegrityScore: 11 });

/** Most recently seen first. */
const ALL = [FIRST_PARTY, STRIPE, STRIPE_NETWORK, RECAPTCHA, ON_PORT, OVER_HTTP, SCORE_9, SCORE_10, SCORE_11];

function policy(value: string, action = 'allow', enabled = true, host = HOST): PolicyText {
  return { action, enabled, expression: `http.host eq "${host}"`, value };
}

/** The policy's name in the stack, by which lines name it. */
const NAME = 'checkout';

/**
 * One policy of the stack on its host, the only header of the host: with a live baseline, that
 * policy is the host's only header before the change, and the stack manages it.
 */
function single(proposed: PolicyText, baseline: Baseline = { kind: 'none' }, options: EvaluatorOptions = {}) {
  const live = baseline.kind === 'live' ? [{ id: baseline.id, policy: baseline.policy }] : [];
  const evaluator = new ZoneImpactEvaluator(
    {
      proposed: [{ name: NAME, policy: proposed, baseline }],
      live,
      managed: baseline.kind === 'unknown' ? { unknown: baseline.reason } : new Set(live.map((policy) => policy.id)),
    },
    options,
  );
  /** Adds items of `kind` detected on the policy's host, and gives its impact. */
  const judged = (kind: 'script' | 'connection', items: readonly Detected[]) => {
    const host = evaluator.hosts[0];
    for (const item of items) if (host !== undefined) evaluator.judge(kind, host)!.add(item);
    return evaluator.results()[0]!;
  };
  return { evaluator, judged };
}

/** The policy's impact with its scripts' judgement beside it (`impact.scripts.x` as `impact.x`). */
function evaluate(proposed: PolicyText, baseline: Baseline = { kind: 'none' }, scripts = ALL, size?: number) {
  const result = single(proposed, baseline, size === undefined ? {} : { sampleSize: size }).judged('script', scripts);
  return { ...result, ...result.scripts };
}

const urls = (lines: DetectedLine[]) => lines.map((line) => line.url);
/**
 * The scripts an allow policy blocks when it allows `allowed`, in the order they are listed: the
 * violations (blocked and not malicious) first, then the malicious one, each most recently seen first.
 * The script over http is never among them: on the https page, the browser blocks it as mixed content.
 */
const except = (...allowed: Detected[]) => {
  const blocked = ALL.filter((s) => !allowed.includes(s) && s !== OVER_HTTP);
  return [...blocked.filter((s) => s !== SCORE_9), ...blocked.filter((s) => s === SCORE_9)].map((s) => s.url);
};

describe('each kind of source allows exactly its scripts (an allow policy blocks the rest)', () => {
  test.each<[string, string, Detected[]]>([
    ['a bare host: that host only', 'js.stripe.com', [STRIPE]],
    ['a wildcard host: its subdomains', '*.stripe.network', [STRIPE_NETWORK]],
    [
      'a scheme: every script over it, on any port',
      'https:',
      [FIRST_PARTY, STRIPE, STRIPE_NETWORK, RECAPTCHA, ON_PORT, SCORE_9, SCORE_10, SCORE_11],
    ],
    ['a port: that host on that port', 'cdn.example.net:8443', [ON_PORT]],
    ['a path prefix: the scripts under it', 'https://js.stripe.com/v3/', [STRIPE]],
    ['a full URL: that script', 'https://www.google.com/recaptcha/api.js', [RECAPTCHA]],
    ["'self': the policy's host, over the page's scheme", "'self'", [FIRST_PARTY]],
    ["'none': nothing", "'none'", []],
    ["'unsafe-inline': no script by its URL", "'unsafe-inline'", []],
    ['a hash: no script by its URL', "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='", []],
  ])('%s', (_kind, source, allowed) => {
    const impact = evaluate(policy(`script-src ${source}`));
    expect(impact.effect).toBe('block');
    expect(impact.judged).toBe(ALL.length);
    expect(urls(impact.notAllowed.lines)).toEqual(except(...allowed));
    expect(impact.notAllowed.count).toBe(ALL.length - allowed.length - 1);
    expect(impact.violations.blocks).toBe(ALL.length - allowed.length - 1 - (allowed.includes(SCORE_9) ? 0 : 1));
    // Neither allowed nor blocked by the policy, whatever it says: counted apart.
    expect(urls(impact.mixedContent.lines)).toEqual([OVER_HTTP.url]);
    // Every source above allows a detected script, or is not judged by URL at all.
    expect(impact.unusedSources).toEqual([]);
  });

  test('a source that allows no detected script is a candidate for removal; hashes and keywords never are', () => {
    const impact = evaluate(
      policy(
        "script-src 'self' js.stripe.com cdn.unused.example https: 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' 'unsafe-inline' ftp:",
      ),
    );
    expect(impact.unusedSources).toEqual(['cdn.unused.example', 'ftp:']);
  });

  test("'self' is judged against the policy's host, not the script's", () => {
    const onShop = evaluate(policy("script-src 'self'", 'allow', true, 'shop.example.com'), { kind: 'none' }, [
      { ...FIRST_PARTY, firstPageUrl: 'https://shop.example.com/' },
    ]);
    expect(urls(onShop.notAllowed.lines)).toEqual([FIRST_PARTY.url]);
  });
});

describe('the lines', () => {
  test('name the URL, the pages, when last seen, the status, and the malicious rule at 9, 10 and 11', () => {
    const impact = evaluate(policy("script-src 'self'"), { kind: 'none' }, [ON_PORT, SCORE_9, SCORE_10, SCORE_11]);
    const line = (s: Detected, malicious: boolean) => ({
      id: s.id,
      url: s.url,
      pages: [PAGE],
      pagesBasis: 'any',
      lastSeenAt: s.lastSeenAt,
      status: s.status,
      malicious,
      ...(malicious ? { maliciousBecause: `js_integrity_score ${s.jsIntegrityScore}` } : {}),
      jsIntegrityScore: s.jsIntegrityScore,
      // The host's only header, this policy, blocks it.
      blockedBy: [{ stack: NAME }],
    });
    // The violations first (blocked and not malicious), then the score-9 script, which the policy
    // is meant to block.
    expect(impact.notAllowed).toEqual({
      count: 4,
      lines: [line(ON_PORT, false), line(SCORE_10, false), line(SCORE_11, false), line(SCORE_9, true)],
    });
    expect(impact.notAllowed.lines[0]!.status).toBe('infrequent');
    expect(impact.notAllowedMalicious).toBe(1);
    expect(impact.violations).toEqual({ blocks: 3, maliciousAllowed: 0 });
    // Blocking a malicious script is what the policy is for: listed as blocked, never as allowed.
    expect(impact.maliciousAllowed).toEqual({ count: 0, lines: [] });
  });

  test('a script without a score (a plan without scores) is not malicious', () => {
    const { jsIntegrityScore: _dropped, ...unscored } = SCORE_9;
    const impact = evaluate(policy('script-src https:'), { kind: 'none' }, [unscored]);
    expect(impact.maliciousAllowed.count).toBe(0);
  });

  test('the lists keep the most recently seen scripts and count them all', () => {
    const impact = evaluate(policy("script-src 'none'"), { kind: 'none' }, ALL, 3);
    expect(impact.notAllowed.count).toBe(ALL.length - 1);
    expect(urls(impact.notAllowed.lines)).toEqual([FIRST_PARTY.url, STRIPE.url, STRIPE_NETWORK.url]);
  });
});

describe('malicious scripts allowed', () => {
  test.each<[string, string, string[]]>([
    ['an allow policy that allows the score-9 script', 'script-src https:', [SCORE_9.url]],
    ['a log policy too, whatever its action', 'script-src https:', [SCORE_9.url]],
    ['none when the score-9 script is not allowed', "script-src 'self' https://score10.example.info/a.js", []],
  ])('%s', (rule, value, expected) => {
    const impact = evaluate(policy(value, rule.includes('log') ? 'log' : 'allow'));
    expect(urls(impact.maliciousAllowed.lines)).toEqual(expected);
    expect(impact.maliciousAllowed.count).toBe(expected.length);
    expect(impact.violations.maliciousAllowed).toBe(expected.length);
  });
});

describe('accepted scripts', () => {
  test('a blocked script the team accepts is listed with its reason, and is no violation', () => {
    const impact = single(
      policy("script-src 'self'"),
      { kind: 'none' },
      {
        scripts: {
          acceptBlocked: (url) =>
            url.startsWith('https://js.stripe.com/') ? 'Stripe moved to the payment iframe' : undefined,
        },
      },
    ).judged('script', [FIRST_PARTY, STRIPE, RECAPTCHA]).scripts;
    expect(impact.violations).toEqual({ blocks: 1, maliciousAllowed: 0 });
    expect(impact.notAllowed.lines.map((l) => [l.url, l.accepted])).toEqual([
      [RECAPTCHA.url, undefined],
      [STRIPE.url, 'Stripe moved to the payment iframe'],
    ]);
  });

  test('a malicious script the team accepts being allowed is listed with its reason, and is no violation', () => {
    const other = script('https://score3.example.info/b.js', '2026-11-21T00:00:00.000Z', { jsIntegrityScore: 3 });
    const impact = evaluate(policy('script-src https:'), { kind: 'none' }, [other, SCORE_9]);
    expect(impact.violations.maliciousAllowed).toBe(2);
    const left = acceptMalicious(impact, (url) =>
      url === other.url ? 'our own script, scored low by mistake' : undefined,
    );
    expect(left).toBe(1);
    expect(impact.violations).toEqual({ blocks: 0, maliciousAllowed: 1 });
    // What is left first, then what is accepted, with its reason.
    expect(impact.maliciousAllowed.lines.map((l) => [l.url, l.accepted])).toEqual([
      [SCORE_9.url, undefined],
      [other.url, 'our own script, scored low by mistake'],
    ]);
  });

  test('malicious scripts allowed past those kept can never be accepted', () => {
    const many = [1, 2, 3].map((i) =>
      script(`https://bad${i}.example.info/x.js`, `2026-11-0${i}T00:00:00.000Z`, { jsIntegrityScore: 1 }),
    );
    const impact = single(policy('script-src https:'), { kind: 'none' }, { maliciousKept: 2 }).judged(
      'script',
      many,
    ).scripts;
    expect(acceptMalicious(impact, () => 'accepted')).toBe(1);
  });
});

describe('the action', () => {
  test('a log policy reports what it does not allow', () => {
    const impact = evaluate(policy('script-src js.stripe.com', 'log'));
    expect(impact.effect).toBe('report');
    // Nothing is a violation, so the list is simply the most recently seen first; the script over
    // http is reported too, though the browser stops it as mixed content anyway.
    expect(urls(impact.notAllowed.lines)).toEqual(ALL.filter((s) => s !== STRIPE).map((s) => s.url));
    expect(impact.notAllowed.lines[0]!.reportedBy).toEqual([{ stack: NAME }]);
    expect(impact.violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
  });

  test('a disabled policy blocks, reports and allows nothing', () => {
    const impact = evaluate(policy('script-src https:', 'allow', false));
    expect(impact.effect).toBe('none');
    expect(impact.notAllowed).toEqual({ count: 0, lines: [] });
    expect(impact.maliciousAllowed).toEqual({ count: 0, lines: [] });
  });
});

describe('compared with the live policy', () => {
  const live = (value: string, action = 'allow', enabled = true): Baseline => ({
    kind: 'live',
    id: 'a'.repeat(32),
    policy: policy(value, action, enabled),
  });

  test('dropping a source newly blocks its scripts, and the change is given as sources', () => {
    const impact = evaluate(
      policy("script-src 'self' https://www.google.com/recaptcha/api.js"),
      live("script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js"),
      [FIRST_PARTY, STRIPE, RECAPTCHA],
    );
    expect(impact.baseline).toEqual({
      id: 'a'.repeat(32),
      effect: 'block',
      hostname: HOST,
      value: "script-src 'self' js.stripe.com https://www.google.com/recaptcha/api.js",
    });
    expect(impact.sourcesAdded).toEqual([]);
    expect(impact.sourcesRemoved).toEqual(['script-src js.stripe.com']);
    expect(urls(impact.newlyBlocked!.lines)).toEqual([STRIPE.url]);
    expect(impact.newlyAllowed).toEqual({ count: 0, lines: [] });
  });

  test('a narrower source that still allows every detected script blocks nothing new', () => {
    const impact = evaluate(
      policy("script-src 'self' https://js.stripe.com/v3/"),
      live("script-src 'self' js.stripe.com"),
      [FIRST_PARTY, STRIPE],
    );
    expect(impact.sourcesAdded).toEqual(['script-src https://js.stripe.com/v3/']);
    expect(impact.sourcesRemoved).toEqual(['script-src js.stripe.com']);
    expect(impact.newlyBlocked).toEqual({ count: 0, lines: [] });
    expect(impact.notAllowed.count).toBe(0);
  });

  test('moving a policy to another host compares with nothing there: everything it blocks is newly blocked', () => {
    const impact = evaluate(
      policy("script-src 'self'"),
      {
        kind: 'live',
        id: 'a'.repeat(32),
        policy: policy("script-src 'self'", 'allow', true, 'www.example.com'),
      },
      [FIRST_PARTY, STRIPE],
    );
    expect(urls(impact.newlyBlocked!.lines)).toEqual([STRIPE.url]);
    expect(impact.baseline).toEqual(expect.objectContaining({ hostname: 'www.example.com' }));
  });

  test('turning an allow policy into a log policy newly allows what it blocked', () => {
    const impact = evaluate(policy("script-src 'self'", 'log'), live("script-src 'self'"), [FIRST_PARTY, STRIPE]);
    expect(urls(impact.newlyAllowed!.lines)).toEqual([STRIPE.url]);
    expect(impact.newlyBlocked).toEqual({ count: 0, lines: [] });
  });

  test('a created policy newly blocks everything it blocks, and every source is added', () => {
    const impact = evaluate(policy("script-src 'self'"), { kind: 'none' }, [FIRST_PARTY, STRIPE]);
    expect(impact.baseline).toBe('none');
    expect(impact.sourcesAdded).toEqual(["script-src 'self'"]);
    expect(urls(impact.newlyBlocked!.lines)).toEqual([STRIPE.url]);
  });

  test('an unknown baseline computes nothing "newly" and says why', () => {
    const impact = evaluate(policy("script-src 'self'"), { kind: 'unknown', reason: 'no previous state' }, [STRIPE]);
    expect(impact.baseline).toEqual({ unknown: 'no previous state' });
    expect(impact.sourcesAdded).toBeNull();
    expect(impact.newlyBlocked).toBeNull();
    expect(impact.newlyAllowed).toBeNull();
    expect(urls(impact.notAllowed.lines)).toEqual([STRIPE.url]);
  });
});

describe('pages', () => {
  /**
   * A first-party script over http: on an https page the browser blocks it as mixed content; on an
   * http page the policy judges it. (The https first-party script is no longer page-dependent under
   * `'self'`: both browsers let an http page's `'self'` reach its host more securely.)
   */
  const LEGACY = script(`http://${HOST}/js/legacy.js`, '2026-11-20T11:00:00.000Z');

  test("an http script's verdict depends on the page's scheme, so the script's pages are worth reading", () => {
    const judge = single(policy("script-src 'self' js.stripe.com")).evaluator.judge('script', HOST)!;
    expect(judge.dependsOnPages(LEGACY)).toBe(true);
    expect(judge.dependsOnPages(FIRST_PARTY)).toBe(false);
    expect(judge.dependsOnPages(STRIPE)).toBe(false);
    expect(judge.dependsOnPages({ ...LEGACY, pageUrls: [PAGE] })).toBe(false);
  });

  test('with its pages read, a script is judged on each page of the host: blocked where the policy refuses it, mixed content on https pages', () => {
    const impact = evaluate(policy('script-src https:'), { kind: 'none' }, [
      { ...LEGACY, pageUrls: [PAGE, `http://${HOST}/legacy-pay`, 'https://www.example.com/'] },
    ]);
    expect(impact.notAllowed.lines).toEqual([
      expect.objectContaining({ url: LEGACY.url, pages: [`http://${HOST}/legacy-pay`], pagesBasis: 'all' }),
    ]);
    expect(impact.mixedContent.lines).toEqual([
      expect.objectContaining({ url: LEGACY.url, pages: [PAGE], pagesBasis: 'all', mixedContent: true }),
    ]);
    expect(impact.judgedOnFirstPageOnly).toBe(0);
  });

  test('without them, it is judged on its first page and counted as such', () => {
    const impact = evaluate(policy('script-src https:'), { kind: 'none' }, [LEGACY]);
    expect(impact.notAllowed.count).toBe(0);
    expect(impact.mixedContent.count).toBe(1);
    expect(impact.judgedOnFirstPageOnly).toBe(1);
  });

  test('a line says whether its pages are all the pages, stand for any page, or are the first page only', () => {
    const impact = evaluate(policy('script-src cdn.example.net'), { kind: 'none' }, [
      { ...LEGACY, firstPageUrl: `http://${HOST}/pay` },
      STRIPE,
    ]);
    expect(impact.notAllowed.lines.map((l) => [l.url, l.pages, l.pagesBasis])).toEqual([
      [LEGACY.url, [`http://${HOST}/pay`], 'first'],
      [STRIPE.url, [PAGE], 'any'],
    ]);
  });

  test('a page without a scheme is read as https', () => {
    const impact = evaluate(policy("script-src 'self'"), { kind: 'none' }, [
      { ...LEGACY, firstPageUrl: `${HOST}/pay` },
    ]);
    // On an http page 'self' would allow it; on an https page it is mixed content.
    expect(impact.notAllowed.count).toBe(0);
    expect(impact.mixedContent.count).toBe(1);
  });
});

describe('completePages', () => {
  test("gives lines whose verdict holds on any page all the script's pages on the host, and leaves the others", () => {
    const legacy = script(`http://${HOST}/js/legacy.js`, '2026-11-20T11:00:00.000Z', {
      firstPageUrl: `http://${HOST}/pay`,
    });
    const impact = evaluate(policy('script-src cdn.example.net'), { kind: 'none' }, [STRIPE, legacy]);
    completePages(
      impact,
      HOST,
      new Map([
        [STRIPE.id, [PAGE, `https://${HOST}/pay/confirm`, 'https://www.example.com/', PAGE]],
        [legacy.id, [PAGE]],
      ]),
    );
    expect(impact.notAllowed.lines.map((l) => [l.url, l.pages, l.pagesBasis])).toEqual([
      [legacy.url, [`http://${HOST}/pay`], 'first'],
      [STRIPE.url, [PAGE, `https://${HOST}/pay/confirm`], 'all'],
    ]);
    expect(impact.newlyBlocked!.lines.find((l) => l.url === STRIPE.url)!.pagesBasis).toBe('all');
  });
});

describe('a policy that cannot be read', () => {
  test('is not judged, and says why', () => {
    const impact = evaluate({
      action: 'allow',
      enabled: true,
      expression: 'http.host eq "x.example"',
      value: 'script-src self',
    });
    expect(impact.problem).toBe(
      `its value cannot be read: invalid source "self" at position 11: keywords and hashes must be in single quotes (write 'self')`,
    );
    expect(impact.judged).toBe(0);
    expect(impact.notAllowed.count).toBe(0);
  });
});

describe('connections: the same judgement under connect-src, else default-src', () => {
  const connection = (url: string, lastSeenAt: string, extra: Partial<Detected> = {}): Detected => ({
    id: url,
    url,
    status: 'active',
    firstPageUrl: PAGE,
    lastSeenAt,
    reports: [],
    ...extra,
  });
  const OWN_API = connection(`https://${HOST}/api/cart`, '2026-11-20T10:00:00.000Z');
  const PAYMENT_API = connection('https://api.stripe.com/v1/tokens', '2026-11-20T09:00:00.000Z');
  const NETWORK = connection('https://m.stripe.network/6/b/', '2026-11-20T08:00:00.000Z');
  const ON_PORT_API = connection('https://events.example.net:8443/ingest', '2026-11-19T12:00:00.000Z', {
    status: 'infrequent',
  });
  const SOCKET = connection('wss://live.example.org/socket', '2026-11-18T12:00:00.000Z');
  const CONNECTIONS = [OWN_API, PAYMENT_API, NETWORK, ON_PORT_API, SOCKET];

  function judge(value: string, items = CONNECTIONS, action = 'allow', options = {}) {
    return single(policy(value, action), { kind: 'none' }, options).judged('connection', items);
  }
  const blocked = (...allowed: Detected[]) => CONNECTIONS.filter((c) => !allowed.includes(c)).map((c) => c.url);

  test.each<[string, string, Detected[]]>([
    ['a bare host: that host only', 'api.stripe.com', [PAYMENT_API]],
    ['a wildcard host: its subdomains', '*.stripe.network', [NETWORK]],
    [
      'a scheme: every connection over it (https: does not allow wss:)',
      'https:',
      [OWN_API, PAYMENT_API, NETWORK, ON_PORT_API],
    ],
    ['a web socket host: that host over wss', 'wss://live.example.org', [SOCKET]],
    ['a port: that host on that port', 'events.example.net:8443', [ON_PORT_API]],
    ['a path prefix: the URLs under it', 'https://api.stripe.com/v1/', [PAYMENT_API]],
    ['a full URL: that URL', 'https://m.stripe.network/6/b/', [NETWORK]],
    ["'self': the policy's host, over the page's scheme", "'self'", [OWN_API]],
    ["'none': nothing", "'none'", []],
    ['a hash: nothing by its URL', "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='", []],
  ])('%s', (_kind, source, allowed) => {
    const impact = judge(`script-src 'self'; connect-src ${source}`);
    expect(impact.connections.judged).toBe(CONNECTIONS.length);
    expect(urls(impact.connections.notAllowed.lines).sort()).toEqual(blocked(...allowed).sort());
    expect(impact.connections.violations).toEqual({ blocks: CONNECTIONS.length - allowed.length, maliciousAllowed: 0 });
    // The scripts' directive plays no part, and no script was added.
    expect(impact.scripts.judged).toBe(0);
  });

  test('without connect-src, default-src governs; script-src never does', () => {
    expect(urls(judge("default-src 'self' api.stripe.com").connections.notAllowed.lines)).toEqual(
      blocked(OWN_API, PAYMENT_API),
    );
    // connect-src wins over default-src.
    expect(urls(judge("default-src 'self'; connect-src api.stripe.com").connections.notAllowed.lines)).toEqual(
      blocked(PAYMENT_API),
    );
    // Neither: nothing restricts connections, whatever script-src says.
    const open = judge("script-src 'none'");
    expect(open.connections.notAllowed.count).toBe(0);
    expect(open.connections.unusedSources).toEqual([]);
  });

  test('a policy with no directive governing connections restricts none, and a malicious one is not its violation', () => {
    const collector = connection('https://skimmer-drop.example.info/c.php', '2026-11-21T00:00:00.000Z', {
      reports: ['domain reported malicious'],
    });
    const impact = judge("script-src 'self'", [collector, PAYMENT_API]);
    expect(impact.connections.governedBy).toBeNull();
    expect(impact.connections.judged).toBe(2);
    expect(impact.connections.maliciousAllowed.count).toBe(0);
    expect(impact.connections.violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
    expect(judge('default-src https:', [collector]).connections).toEqual(
      expect.objectContaining({ governedBy: 'default-src', violations: { blocks: 0, maliciousAllowed: 1 } }),
    );
  });

  test('csp-change-impact says a policy with no directive governing connections restricts none, and lists none as blocked', () => {
    const value = "script-src 'self'";
    const impact = judge(value);
    const review = { ...impact, key: 'urn', name: 'checkout', zoneId: 'z', action: 'allow', enabled: true, value };
    const summary = impactText(review);
    expect(summary).toContain(
      `${CONNECTIONS.length} connections detected on ${HOST}.\nThe policy has none of connect-src, default-src: it restricts no connection.`,
    );
    expect(summary).not.toMatch(/Blocks \d+ connection/);
    expect(impactText({ ...review, ...judge("connect-src 'self'"), value: "connect-src 'self'" })).toMatch(
      /Blocks \d+ connections:/,
    );
  });

  test('sources of connect-src that allow no detected connection are candidates for removal', () => {
    const impact = judge("script-src 'self' cdn.unused.example; connect-src 'self' api.stripe.com old-api.example.com");
    expect(impact.connections.unusedSources).toEqual(['old-api.example.com']);
  });

  test.each<[string, Partial<Detected>, string]>([
    ['its domain reported malicious', { reports: ['domain reported malicious'] }, 'domain reported malicious'],
    [
      'its URL reported malicious',
      { reports: ['URL reported malicious (Malware)'] },
      'URL reported malicious (Malware)',
    ],
  ])('a connection with %s that the policy allows is a violation, whatever its action', (_what, extra, because) => {
    const collector = connection('https://skimmer-drop.example.info/c.php', '2026-11-21T00:00:00.000Z', extra);
    for (const action of ['allow', 'log']) {
      const impact = judge('connect-src https:', [collector, PAYMENT_API], action);
      expect(impact.connections.maliciousAllowed.lines.map((l) => [l.url, l.maliciousBecause])).toEqual([
        [collector.url, because],
      ]);
      expect(impact.connections.violations.maliciousAllowed).toBe(1);
    }
    // Blocked, it is what the policy is for: no violation.
    const blockedImpact = judge('connect-src api.stripe.com', [collector, PAYMENT_API]);
    expect(blockedImpact.connections.violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
    expect(blockedImpact.connections.notAllowedMalicious).toBe(1);
  });

  test('a connection nothing was reported about is not malicious, even with a low-scored script of the same URL', () => {
    const impact = judge('connect-src https:', [
      connection(PAYMENT_API.url, PAYMENT_API.lastSeenAt, { jsIntegrityScore: 1 }),
    ]);
    expect(impact.connections.maliciousAllowed.count).toBe(0);
  });

  test('an http connection from an http page: the verdict depends on the page, judged on its first page and counted', () => {
    // Refused on its http page; on an https page it would be mixed content.
    const legacy = connection(`http://${HOST}/api/legacy`, '2026-11-20T10:00:00.000Z', {
      firstPageUrl: `http://${HOST}/pay`,
    });
    const impact = judge('connect-src https:', [legacy]);
    expect(impact.connections.notAllowed.lines.map((l) => [l.url, l.pagesBasis])).toEqual([[legacy.url, 'first']]);
    expect(impact.connections.judgedOnFirstPageOnly).toBe(1);
  });

  test('dropping the payment API from connect-src newly blocks it', () => {
    const impact = single(policy("connect-src 'self'"), {
      kind: 'live',
      id: 'a'.repeat(32),
      policy: policy("connect-src 'self' api.stripe.com"),
    }).judged('connection', [OWN_API, PAYMENT_API]);
    expect(impact.sourcesRemoved).toEqual(['connect-src api.stripe.com']);
    expect(urls(impact.connections.newlyBlocked!.lines)).toEqual([PAYMENT_API.url]);
    expect(impact.connections.violations.blocks).toBe(1);
  });
});

describe("a host's CSP headers, judged together (issue 24, item 3)", () => {
  const proposal = (
    name: string,
    value: string,
    action = 'allow',
    baseline: Baseline = { kind: 'none' },
  ): ProposedPolicy => ({
    name,
    policy: policy(value, action),
    baseline,
  });
  /** Each proposed policy's impact on `scripts` detected on the checkout, judged with `live` as the zone's live policies. */
  function judgedTogether(
    proposed: ProposedPolicy[],
    scripts: readonly Detected[],
    live: LivePolicy[] = [],
    managed: ZonePolicies['managed'] = new Set(),
  ) {
    const evaluator = new ZoneImpactEvaluator({ proposed, live, managed });
    for (const s of scripts) evaluator.judge('script', HOST)!.add(s);
    return evaluator.results();
  }
  const blockers = (lines: DetectedLine[]) => lines.map((line) => [line.url, line.blockedBy]);

  test('two allow policies: an item either refuses is blocked, and its line names the one that refuses it', () => {
    const [strict, wide] = judgedTogether(
      [proposal('strict', "script-src 'self' js.stripe.com"), proposal('wide', "script-src 'self' www.google.com")],
      [FIRST_PARTY, STRIPE, RECAPTCHA, SCORE_9],
    );
    expect(strict!.hostHeaders).toEqual([
      { policy: { stack: 'strict' }, effect: 'block' },
      { policy: { stack: 'wide' }, effect: 'block' },
    ]);
    // What each refuses is its own block, named; what only the other refuses is blocked all the same.
    expect(blockers(strict!.scripts.notAllowed.lines)).toEqual([
      [RECAPTCHA.url, [{ stack: 'strict' }]],
      [SCORE_9.url, [{ stack: 'strict' }, { stack: 'wide' }]],
    ]);
    expect(blockers(strict!.scripts.blockedByOthers.lines)).toEqual([[STRIPE.url, [{ stack: 'wide' }]]]);
    expect(blockers(wide!.scripts.notAllowed.lines)).toEqual([
      [STRIPE.url, [{ stack: 'wide' }]],
      [SCORE_9.url, [{ stack: 'strict' }, { stack: 'wide' }]],
    ]);
    expect(blockers(wide!.scripts.blockedByOthers.lines)).toEqual([[RECAPTCHA.url, [{ stack: 'strict' }]]]);
    // Each policy's violation is what it blocks itself: every blocked item is one policy's violation.
    expect(strict!.scripts.violations).toEqual({ blocks: 1, maliciousAllowed: 0 });
    expect(wide!.scripts.violations).toEqual({ blocks: 1, maliciousAllowed: 0 });
    // Both are created: whatever the host now blocks is newly blocked, in each policy's review.
    for (const impact of [strict!, wide!])
      expect(urls(impact.scripts.newlyBlocked!.lines)).toEqual([STRIPE.url, RECAPTCHA.url, SCORE_9.url]);
  });

  test('a live policy the stack does not manage stays beside the proposed one, named by its id; the one replaced does not', () => {
    const replaced = { id: 'a'.repeat(32), policy: policy("script-src 'self' js.stripe.com www.google.com") };
    const other = { id: 'b'.repeat(32), policy: policy("script-src 'self' www.google.com") };
    const [checkout] = judgedTogether(
      [proposal(NAME, "script-src 'self' js.stripe.com", 'allow', { kind: 'live', ...replaced })],
      [FIRST_PARTY, STRIPE, RECAPTCHA],
      [replaced, other],
      new Set([replaced.id]),
    );
    expect(checkout!.hostHeaders).toEqual([
      { policy: { stack: NAME }, effect: 'block' },
      { policy: { live: other.id }, effect: 'block' },
    ]);
    expect(checkout!.headersUnknown).toBeUndefined();
    expect(blockers(checkout!.scripts.notAllowed.lines)).toEqual([[RECAPTCHA.url, [{ stack: NAME }]]]);
    expect(blockers(checkout!.scripts.blockedByOthers.lines)).toEqual([[STRIPE.url, [{ live: other.id }]]]);
    // The other policy blocked Stripe before the change too: only reCAPTCHA is newly blocked.
    expect(blockers(checkout!.scripts.newlyBlocked!.lines)).toEqual([[RECAPTCHA.url, [{ stack: NAME }]]]);
    expect(checkout!.scripts.newlyAllowed).toEqual({ count: 0, lines: [] });
    expect(checkout!.scripts.violations).toEqual({ blocks: 1, maliciousAllowed: 0 });
  });

  test('a live policy whose action EdgeGuard does not know (issue 42: add_reporting_directives) is judged neither enforcing nor report-only, and the review says so', () => {
    const unknown = { id: 'c'.repeat(32), policy: policy("script-src 'self'", 'add_reporting_directives') };
    const [checkout] = judgedTogether(
      [proposal(NAME, "script-src 'self' js.stripe.com")],
      [FIRST_PARTY, STRIPE, RECAPTCHA],
      [unknown],
      new Set(),
    );
    // It is no header of the host: neither blocking nor reporting.
    expect(checkout!.hostHeaders).toEqual([{ policy: { stack: NAME }, effect: 'block' }]);
    expect(checkout!.headersUnknown).toBe(
      `the live policy ${unknown.id} cannot be read: its action "add_reporting_directives" is not one EdgeGuard knows (allow enforces, log reports): it is judged neither as enforcing nor as report-only`,
    );
    expect(checkout!.scripts.blockedByOthers.count).toBe(0);
    // What the host sent before is not known, so nothing "newly" is computed.
    expect(checkout!.scripts.newlyBlocked).toBeNull();
  });

  test('a proposed or baseline policy with an unknown action is a problem of its own, not an enforcing one', () => {
    const { judged } = single(policy("script-src 'self'", 'add_reporting_directives'));
    const impact = judged('script', [FIRST_PARTY, STRIPE]);
    expect(impact.effect).toBe('none');
    expect(impact.problem).toMatch(/its action "add_reporting_directives" is not one EdgeGuard knows/);
    const disabled = single({ ...policy("script-src 'self'", 'add_reporting_directives'), enabled: false }).judged(
      'script',
      [STRIPE],
    );
    // Disabled, it has no effect whatever its action.
    expect(disabled.problem).toBeUndefined();
  });

  test('which live policies the stack manages unknown: none is judged with the proposed ones, nothing "newly" is computed, and the review says why', () => {
    const other = { id: 'b'.repeat(32), policy: policy("script-src 'self' www.google.com") };
    const [checkout] = judgedTogether(
      [proposal(NAME, "script-src 'self' js.stripe.com", 'allow', { kind: 'unknown', reason: 'no previous state' })],
      [FIRST_PARTY, STRIPE, RECAPTCHA],
      [other],
      // Known, but the baseline is not: the live policy could be this one's own previous version.
      new Set(),
    );
    expect(checkout!.hostHeaders).toEqual([{ policy: { stack: NAME }, effect: 'block' }]);
    expect(checkout!.headersUnknown).toBe('which live policies the stack manages is not known: no previous state');
    expect(checkout!.scripts.blockedByOthers.count).toBe(0);
    expect(checkout!.scripts.newlyBlocked).toBeNull();
    expect(checkout!.scripts.newlyAllowed).toBeNull();
  });

  test('a log policy reports what it refuses, even what an allow policy blocks; the lines name both', () => {
    const [enforced, logged] = judgedTogether(
      [
        proposal('enforced', "script-src 'self' js.stripe.com www.google.com"),
        proposal('logged', "script-src 'self' js.stripe.com", 'log'),
      ],
      [FIRST_PARTY, STRIPE, RECAPTCHA, ON_PORT],
    );
    expect(logged!.effect).toBe('report');
    expect(logged!.scripts.notAllowed.lines.map((l) => [l.url, l.reportedBy, l.blockedBy])).toEqual([
      [RECAPTCHA.url, [{ stack: 'logged' }], undefined],
      [ON_PORT.url, [{ stack: 'logged' }], [{ stack: 'enforced' }]],
    ]);
    expect(logged!.scripts.violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
    expect(urls(logged!.scripts.blockedByOthers.lines)).toEqual([ON_PORT.url]);
    expect(enforced!.scripts.notAllowed.lines.map((l) => [l.url, l.blockedBy, l.reportedBy])).toEqual([
      [ON_PORT.url, [{ stack: 'enforced' }], [{ stack: 'logged' }]],
    ]);
    // Reported, reCAPTCHA still loads: it is no block of anyone's.
    expect(enforced!.scripts.blockedByOthers.count).toBe(0);
    expect(enforced!.hostHeaders).toEqual([
      { policy: { stack: 'enforced' }, effect: 'block' },
      { policy: { stack: 'logged' }, effect: 'report' },
    ]);
  });

  test('a disabled policy sends no header: what the host blocks comes from the others', () => {
    const [off] = judgedTogether(
      [proposal('off', "script-src 'none'", 'allow'), proposal('on', "script-src 'self'")].map((p, i) =>
        i === 0 ? { ...p, policy: { ...p.policy, enabled: false } } : p,
      ),
      [FIRST_PARTY, STRIPE],
    );
    expect(off!.hostHeaders).toEqual([{ policy: { stack: 'on' }, effect: 'block' }]);
    expect(off!.scripts.notAllowed.count).toBe(0);
    expect(blockers(off!.scripts.blockedByOthers.lines)).toEqual([[STRIPE.url, [{ stack: 'on' }]]]);
  });
});

describe('what the browser does before any header, and where the two browsers differ', () => {
  const MALICIOUS_OVER_HTTP = script('http://evil.example.info/x.js', '2026-11-21T00:00:00.000Z', {
    jsIntegrityScore: 3,
  });

  test("an https page's http script is blocked as mixed content: no policy's block, not allowed, no violation", () => {
    for (const value of ['script-src http: https:', "script-src 'none'"]) {
      const impact = evaluate(policy(value), { kind: 'none' }, [OVER_HTTP, MALICIOUS_OVER_HTTP]);
      // Whether the policy would refuse them changes nothing: the lines name no header.
      expect(impact.mixedContent.lines.map((l) => [l.url, l.mixedContent, l.blockedBy])).toEqual([
        [MALICIOUS_OVER_HTTP.url, true, undefined],
        [OVER_HTTP.url, true, undefined],
      ]);
      expect(impact.notAllowed.count).toBe(0);
      expect(impact.maliciousAllowed.count).toBe(0);
      expect(impact.violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
      expect(impact.newlyBlocked).toEqual({ count: 0, lines: [] });
    }
  });

  test('upgrade-insecure-requests rewrites http: to https: before the headers judge it: no mixed content, and the https URL must be allowed', () => {
    const allowed = evaluate(policy('script-src https:; upgrade-insecure-requests'), { kind: 'none' }, [OVER_HTTP]);
    expect(allowed.mixedContent.count).toBe(0);
    expect(allowed.notAllowed.count).toBe(0);
    const refused = evaluate(policy("script-src 'self'; upgrade-insecure-requests"), { kind: 'none' }, [OVER_HTTP]);
    expect(refused.notAllowed.lines).toEqual([
      expect.objectContaining({ url: OVER_HTTP.url, upgraded: true, blockedBy: [{ stack: NAME }] }),
    ]);
    expect(refused.mixedContent.count).toBe(0);
    // Adding it to the live policy newly allows what was mixed content.
    const added = evaluate(
      policy('script-src https:; upgrade-insecure-requests'),
      { kind: 'live', id: 'a'.repeat(32), policy: policy('script-src https:') },
      [OVER_HTTP],
    );
    expect(added.newlyAllowed!.lines).toEqual([expect.objectContaining({ url: OVER_HTTP.url, upgraded: true })]);
  });

  test("a log policy's upgrade-insecure-requests upgrades nothing (a report-only header cannot); it reports what it refuses, mixed content too", () => {
    const impact = evaluate(policy('script-src https:; upgrade-insecure-requests', 'log'), { kind: 'none' }, [
      OVER_HTTP,
    ]);
    expect(impact.mixedContent.lines.map((l) => [l.url, l.reportedBy])).toEqual([[OVER_HTTP.url, [{ stack: NAME }]]]);
    expect(impact.notAllowed.lines.map((l) => [l.url, l.mixedContent])).toEqual([[OVER_HTTP.url, true]]);
    expect(impact.violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
  });

  test('where the browsers differ, the line says which one blocks, and the item counts as blocked', () => {
    // Firefox lets a :80 source match https on 443; Chromium does not (../shared/notes/browsers.md).
    const legacy = script('https://legacy.example.org/old.js', '2026-11-20T12:00:00.000Z');
    const impact = evaluate(policy('script-src legacy.example.org:80'), { kind: 'none' }, [legacy]);
    expect(impact.notAllowed.lines).toEqual([
      expect.objectContaining({ url: legacy.url, only: 'chromium', blockedBy: [{ stack: NAME }] }),
    ]);
    expect(impact.violations.blocks).toBe(1);
    expect(impact.newlyBlocked!.lines[0]!.only).toBe('chromium');
    // The source is used: Firefox loads the script by it.
    expect(impact.unusedSources).toEqual([]);
  });

  test('on an upgraded port, Chromium blocks what Firefox lets through', () => {
    const onPort = script('http://legacy.example.org:8080/old.js', '2026-11-20T12:00:00.000Z');
    const impact = evaluate(
      policy('script-src http://legacy.example.org:8080; upgrade-insecure-requests'),
      { kind: 'none' },
      [onPort],
    );
    expect(impact.notAllowed.lines).toEqual([
      expect.objectContaining({ url: onPort.url, only: 'chromium', upgraded: true }),
    ]);
    expect(impact.violations.blocks).toBe(1);
  });

  test('a malicious script one browser lets load is allowed there: a violation, its line naming the browser', () => {
    const bad = script('https://legacy.example.org/x.js', '2026-11-20T12:00:00.000Z', { jsIntegrityScore: 3 });
    const impact = evaluate(policy('script-src legacy.example.org:80'), { kind: 'none' }, [bad]);
    expect(impact.maliciousAllowed.lines).toEqual([expect.objectContaining({ url: bad.url, only: 'firefox' })]);
    expect(impact.violations).toEqual({ blocks: 0, maliciousAllowed: 1 });
    expect(impact.notAllowed.lines).toEqual([expect.objectContaining({ url: bad.url, only: 'chromium' })]);
  });
});

describe("the words: csp-change-impact's message and the review's Markdown", () => {
  test('name the policy that blocks an item, the browser when one alone does, and mixed content apart', () => {
    const legacy = script('https://legacy.example.org/old.js', '2026-11-20T12:00:00.000Z');
    const evaluator = new ZoneImpactEvaluator({
      proposed: [
        {
          name: NAME,
          policy: policy("script-src 'self' js.stripe.com legacy.example.org:80"),
          baseline: { kind: 'none' },
        },
        { name: 'strict', policy: policy("script-src 'self' legacy.example.org:80"), baseline: { kind: 'none' } },
      ],
      live: [],
      managed: new Set(),
    });
    for (const s of [FIRST_PARTY, STRIPE, RECAPTCHA, OVER_HTTP, legacy]) evaluator.judge('script', HOST)!.add(s);
    const [result] = evaluator.results();
    const value = "script-src 'self' js.stripe.com legacy.example.org:80";
    const review = { ...result!, key: 'urn', name: NAME, zoneId: 'z', action: 'allow', enabled: true, value };

    const summary = impactText(review);
    expect(summary).toContain(
      `Judged with every CSP header of ${HOST} after the change, in Chromium and Firefox: this policy (enforced), "strict" (enforced); a fetch loads only if every enforced one allows it.`,
    );
    expect(summary).toContain(
      `${RECAPTCHA.url} on every page it was seen on (first: ${PAGE}) (last seen ${RECAPTCHA.lastSeenAt}; blocked by this policy and "strict")`,
    );
    expect(summary).toContain(
      `${legacy.url} on its first page ${PAGE} (its other pages not read) (last seen ${legacy.lastSeenAt}; blocked by this policy and "strict"; in Chromium only, not in Firefox)`,
    );
    expect(summary).toContain(`Other policies of the host block 1 script this one does not:\n  - ${STRIPE.url}`);
    expect(summary).toContain(`(last seen ${STRIPE.lastSeenAt}; blocked by "strict")`);
    expect(summary).toContain(
      `Blocked by the browser as mixed content, whatever the policies say: 1 script (http: or ws: from an https: page that no upgrade-insecure-requests rewrites; neither allowed nor a policy's block):\n  - ${OVER_HTTP.url}`,
    );

    const markdown = renderMarkdown(reviewReport({ exitCode: 1, policies: [review] }));
    expect(markdown).toContain(
      'this policy (enforced), "strict" (enforced); a fetch loads only if every enforced one allows it.',
    );
    expect(markdown).toContain(
      `- \`${RECAPTCHA.url}\` on every page it was seen on (first: \`${PAGE}\`); last seen ${RECAPTCHA.lastSeenAt}; blocked by this policy and "strict"`,
    );
    expect(markdown).toContain('in Chromium only, not in Firefox');
    expect(markdown).toContain('**Other policies of the host block 1 script this one does not**');
    expect(markdown).toContain('**Blocked by the browser as mixed content, whatever the policies say: 1 script');
    expect(markdown).toContain(
      `- \`${OVER_HTTP.url}\` on its first page \`${PAGE}\` (its other pages not read); last seen ${OVER_HTTP.lastSeenAt}; blocked by the browser as mixed content`,
    );
  });
});

describe("the review's table of unchanged policies", () => {
  test('counts what the browser blocks as mixed content apart, and names it under the table', () => {
    const value = "script-src 'self' js.stripe.com legacy.example.org";
    // The live policy is the proposal: unchanged, and nothing it blocks.
    const evaluator = new ZoneImpactEvaluator({
      proposed: [
        { name: NAME, policy: policy(value), baseline: { kind: 'live', id: 'live-1', policy: policy(value) } },
      ],
      live: [{ id: 'live-1', policy: policy(value) }],
      managed: new Set(['live-1']),
    });
    for (const s of [FIRST_PARTY, STRIPE, OVER_HTTP]) evaluator.judge('script', HOST)!.add(s);
    const [result] = evaluator.results();
    const review = { ...result!, key: 'urn', name: NAME, zoneId: 'z', action: 'allow', enabled: true, value };
    expect(isCreatedOrChanged(review)).toBe(false);

    const markdown = renderMarkdown(reviewReport({ policies: [review] }));
    expect(markdown).toContain('unchanged and without violation:');
    expect(markdown).toContain(
      '| Policy | Host | Action | Detected | Blocked or reported | Of which malicious | Blocked as mixed content | Unused sources |',
    );
    // Three scripts: none blocked by a policy, one by the browser as mixed content (the one source
    // that allows it allows nothing that loads).
    expect(markdown).toContain(
      `| \`${NAME}\` | \`${HOST}\` | allow | 3 scripts | 0 | 0 | 1 | \`legacy.example.org\` |`,
    );
    expect(markdown).toContain(
      `**\`${NAME}\` on \`${HOST}\`: Blocked by the browser as mixed content, whatever the policies say: 1 script (http: or ws: from an https: page`,
    );
    expect(markdown).toContain(`- \`${OVER_HTTP.url}\` on `);
    expect(markdown).toContain('blocked by the browser as mixed content\n');
  });
});

describe('connectionReports: the malicious flags one by one', () => {
  const clean = {
    domain_reported_malicious: false,
    malicious_domain_categories: [],
    url_reported_malicious: false,
    malicious_url_categories: [],
  };
  test.each<[string, Partial<typeof clean>, string[]]>([
    ['nothing reported', {}, []],
    ['domain_reported_malicious', { domain_reported_malicious: true }, ['domain reported malicious']],
    [
      'malicious_domain_categories alone',
      { malicious_domain_categories: ['Phishing'] as never[] },
      ['domain reported malicious (Phishing)'],
    ],
    ['url_reported_malicious', { url_reported_malicious: true }, ['URL reported malicious']],
    [
      'malicious_url_categories alone',
      { malicious_url_categories: ['Malware'] as never[] },
      ['URL reported malicious (Malware)'],
    ],
    [
      'both, with categories',
      {
        domain_reported_malicious: true,
        malicious_domain_categories: ['Malware', 'Phishing'] as never[],
        url_reported_malicious: true,
      },
      ['domain reported malicious (Malware, Phishing)', 'URL reported malicious'],
    ],
  ])('%s', (_flag, flags, expected) => {
    expect(connectionReports({ ...clean, ...flags })).toEqual(expected);
  });
});

describe('acceptBlocked: blocked connections accepted after the judging', () => {
  const item = (n: number): Detected => ({
    id: `c${n}`,
    url: `https://api${n}.example.net/x`,
    status: 'active',
    firstPageUrl: PAGE,
    lastSeenAt: `2026-11-0${n}T00:00:00.000Z`,
    reports: [],
  });
  test('marks the accepted lines kept, counts what is left, and cuts the list to the sample size', () => {
    const impact = single(
      policy("connect-src 'none'"),
      { kind: 'none' },
      {
        connections: { notAllowedKept: 3 },
        sampleSize: 2,
      },
    ).judged('connection', [1, 2, 3, 4].map(item)).connections;
    expect(impact.notAllowed.lines).toHaveLength(3);
    // api4 and api3 are kept and accepted; api1 is not kept, so it stays a violation with api2.
    const left = acceptBlocked(impact, (url) => (/api[134]\./.test(url) ? 'moved behind our proxy' : undefined), 2);
    expect(left).toBe(2);
    expect(impact.violations.blocks).toBe(2);
    expect(impact.notAllowed.lines.map((l) => [l.url, l.accepted])).toEqual([
      ['https://api2.example.net/x', undefined],
      ['https://api4.example.net/x', 'moved behind our proxy'],
    ]);
  });
});

describe('items of one origin on one page share a judgement, not what is particular to each', () => {
  // Same origin and first page: one judgement of the origin, then each item counted on its own.
  const sameOrigin = [
    script('https://cdn.shared.example/a.js', '2026-11-20T10:00:00.000Z'),
    script('https://cdn.shared.example/b.js', '2026-11-20T09:00:00.000Z', { jsIntegrityScore: 4 }),
    script('https://cdn.shared.example/c.js', '2026-11-20T08:00:00.000Z', { status: 'infrequent' }),
    script('https://cdn.shared.example/accepted.js', '2026-11-20T07:00:00.000Z'),
    script('https://cdn.shared.example/d.js', '2026-11-20T06:00:00.000Z', { firstPageUrl: `http://${HOST}/old` }),
  ];
  const judged = (value: string) => {
    return single(
      policy(value),
      { kind: 'live', id: 'live', policy: policy("script-src 'self' cdn.shared.example") },
      { scripts: { acceptBlocked: (url) => (url.endsWith('/accepted.js') ? 'vendor, reviewed' : undefined) } },
    ).judged('script', sameOrigin).scripts;
  };

  test('blocked: each item is its own line, malice, status and acceptance its own', () => {
    // No path source: judged by origin. A path source that allows nothing here: judged URL by URL.
    for (const value of ["script-src 'self'", "script-src 'self' https://other.example/lib/"]) {
      const impact = judged(value);
      expect(impact.judged).toBe(5);
      expect(impact.violations).toEqual({ blocks: 3, maliciousAllowed: 0 });
      expect(impact.notAllowedMalicious).toBe(1);
      expect(
        impact.notAllowed.lines.map((line) => [line.url, line.status, line.malicious, line.accepted, line.pages]),
      ).toEqual([
        ['https://cdn.shared.example/a.js', 'active', false, undefined, [PAGE]],
        ['https://cdn.shared.example/c.js', 'infrequent', false, undefined, [PAGE]],
        ['https://cdn.shared.example/d.js', 'active', false, undefined, [`http://${HOST}/old`]],
        ['https://cdn.shared.example/b.js', 'active', true, undefined, [PAGE]],
        ['https://cdn.shared.example/accepted.js', 'active', false, 'vendor, reviewed', [PAGE]],
      ]);
      expect(impact.newlyBlocked!.count).toBe(5);
    }
  });

  test('allowed: the malicious one is allowed, and the source is used', () => {
    const impact = judged("script-src 'self' cdn.shared.example other.example");
    expect(impact.violations).toEqual({ blocks: 0, maliciousAllowed: 1 });
    expect(impact.maliciousAllowed.lines.map((line) => line.url)).toEqual(['https://cdn.shared.example/b.js']);
    expect(impact.unusedSources).toEqual(["'self'", 'other.example']);
    expect(impact.newlyBlocked!.count).toBe(0);
  });
});

describe('items whose paths match the same path sources share a judgement, and only those (issue 30)', () => {
  // Sources with paths on several hosts, before and after, enforced and report-only, with a disabled
  // policy judged alone: every path of a source matters, percent-encoded, dot segments, exact or prefix.
  const before = "script-src 'self' https://cdn.shared.example/lib/ https://cdn.shared.example/one.js";
  const after = [
    "script-src https://cdn.shared.example/lib/v2/ cdn.shared.example/a%20b.js https://vendor.example/pay/ 'self' https://*.shared.example/w/",
    'script-src https://cdn.shared.example/lib/ https://vendor.example/pay/v1.js; upgrade-insecure-requests',
  ];
  const paths = [
    '/lib/v2/x.js',
    '/lib/v2/',
    '/lib/v20/x.js',
    '/lib/x.js',
    '/lib/../lib/v2/y.js',
    '/lib/%76%32/z.js',
    '/LIB/v2/x.js',
    '/one.js',
    '/one.js/',
    '/a%20b.js',
    '/a b.js',
    '/a%2520b.js',
    '/pay/v1.js',
    '/pay/v1.js?x=1',
    '/pay/v2.js',
    '/other.js',
    '/w/x.js',
  ];
  const origins = [
    'https://cdn.shared.example',
    'http://cdn.shared.example',
    'https://vendor.example',
    'https://img.shared.example',
    `https://${HOST}`,
  ];
  const items = origins.flatMap((origin, o) =>
    paths.map((path, p) =>
      script(
        `${origin}${path}`,
        `2026-11-${String(10 + ((o * paths.length + p) % 15)).padStart(2, '0')}T00:00:00.000Z`,
        {
          firstPageUrl: p % 3 === 0 ? `http://${HOST}/old` : PAGE,
        },
      ),
    ),
  );
  const evaluator = () =>
    new ZoneImpactEvaluator(
      {
        proposed: [
          {
            name: 'enforced',
            policy: policy(after[0]!),
            baseline: { kind: 'live', id: 'live', policy: policy(before) },
          },
          { name: 'reporting', policy: policy(after[1]!, 'log'), baseline: { kind: 'none' } },
          { name: 'disabled', policy: policy(before, 'allow', false), baseline: { kind: 'none' } },
        ],
        live: [{ id: 'live', policy: policy(before) }],
        managed: new Set(['live']),
      },
      { sampleSize: items.length },
    );
  /** Each item's lines in every list of every policy's impact: what a line says of it, by list and policy. */
  const linesOf = (results: ReturnType<ZoneImpactEvaluator['results']>) => {
    const byUrl = new Map<string, string[]>();
    results.forEach((result, p) => {
      for (const [list, sample] of Object.entries(result.scripts)) {
        if (sample === null || typeof sample !== 'object' || !('lines' in sample)) continue;
        for (const line of sample.lines)
          byUrl.set(line.url, [...(byUrl.get(line.url) ?? []), `${p} ${list} ${JSON.stringify(line)}`]);
      }
    });
    return byUrl;
  };

  test('judged together, each item gets the lines it gets judged alone', () => {
    const together = evaluator();
    for (const item of items) together.judge('script', HOST)!.add(item);
    const joint = linesOf(together.results());
    const alone = new Map<string, string[]>();
    for (const item of items) {
      const single = evaluator();
      single.judge('script', HOST)!.add(item);
      for (const [url, lines] of linesOf(single.results())) alone.set(url, lines);
    }
    // Every list of the sample names some items, so that the comparison is not of empty lists.
    expect(
      new Set([...alone.values()].flat().map((line) => line.split(' ').slice(0, 2).join(' '))).size,
    ).toBeGreaterThan(4);
    expect(Object.fromEntries(joint)).toEqual(Object.fromEntries(alone));
  });
});
