import { MALICIOUS_SCRIPT_RULE } from '../../../rules/malicious';
import { markdown, renderMarkdown } from '../../../provider/format/review-markdown';
import { impactText, text } from '../../../provider/format/review-text';
import { ZoneImpactEvaluator, type Detected, type DetectedLine } from '../../../provider/impact/evaluate';
import type { PolicyReview } from '../../../provider/impact/model';
import {
  isList,
  itemList,
  notDonePhrase,
  policyStatement,
  poolsPhrase,
  unjudgedPhrase,
} from '../../../provider/impact/statements';
import { reviewReport } from '../../helpers/review-report';

/**
 * What a review says (`provider/impact/statements.ts`) is one model, which the pack's text and the
 * report's Markdown both render: every sentence, list and line of it reaches both, in the same
 * words, and the model holds no more lines than a list shows.
 */

const HOST = 'checkout.example.com';
const PAGE = `https://${HOST}/pay`;
const LIVE_ID = 'a'.repeat(32);
const LIVE_VALUE = "script-src 'self' https:";
const VALUE = "script-src 'self' evil.example.info";

function script(url: string, extra: Partial<Detected> = {}): Detected {
  return {
    id: url,
    url,
    status: 'active',
    firstPageUrl: PAGE,
    lastSeenAt: '2026-11-20T10:00:00.000Z',
    jsIntegrityScore: 50,
    ...extra,
  };
}

/** 12 scripts the change blocks (more than a list shows), a malicious one it allows, one the browser blocks as mixed content. */
const CDN = Array.from({ length: 12 }, (_, i) => script(`https://cdn${i}.example.net/app.js`));
const MALICIOUS = script('https://evil.example.info/skim.js', { jsIntegrityScore: 4, status: 'infrequent' });
const OVER_HTTP = script('http://legacy.example.org/old.js');

/** The review of a log policy turned into an allow policy that drops `https:` and allows a malicious host. */
function reviewed(): PolicyReview {
  const evaluator = new ZoneImpactEvaluator({
    proposed: [
      {
        name: 'checkout',
        policy: { action: 'allow', enabled: true, expression: `http.host eq "${HOST}"`, value: VALUE },
        baseline: {
          kind: 'live',
          id: LIVE_ID,
          policy: { action: 'log', enabled: true, expression: `http.host eq "${HOST}"`, value: LIVE_VALUE },
        },
      },
    ],
    live: [
      {
        id: LIVE_ID,
        policy: { action: 'log', enabled: true, expression: `http.host eq "${HOST}"`, value: LIVE_VALUE },
      },
    ],
    managed: new Set([LIVE_ID]),
  });
  for (const item of [...CDN, MALICIOUS, OVER_HTTP]) evaluator.judge('script', HOST)!.add(item);
  const [impact] = evaluator.results();
  return { ...impact!, key: 'urn', name: 'checkout', zoneId: 'z', action: 'allow', enabled: true, value: VALUE };
}

function markdownOf(review: PolicyReview): string {
  return renderMarkdown(reviewReport({ exitCode: 1, policies: [review] }));
}

test('every sentence, list and line of a policy reaches both the text and the Markdown', () => {
  const review = reviewed();
  const statement = policyStatement(review);
  const [asText, asMarkdown] = [impactText(review), markdownOf(review)];
  const parts = [...statement.comparison, ...statement.changes, ...statement.kinds.flatMap((kind) => kind.parts)];
  expect(parts.filter(isList).length).toBeGreaterThanOrEqual(3);
  for (const part of parts) {
    const phrase = isList(part) ? part.title : part;
    expect(asText).toContain(text(phrase));
    expect(asMarkdown).toContain(markdown(phrase));
    for (const line of isList(part) ? part.lines : []) {
      expect(asText).toContain(`${line.url} ${text(line.pages)} (${line.notes.map(text).join('; ')})`);
      expect(asMarkdown).toContain(`\`${line.url}\` ${markdown(line.pages)}; ${line.notes.map(markdown).join('; ')}`);
    }
  }
});

test('the words the text and the Markdown used to say apart are the same', () => {
  const review = reviewed();
  const [asText, asMarkdown] = [impactText(review), markdownOf(review)];
  // The change of effect, once said in the text alone.
  expect(asText).toContain('\nEffect: report -> block.\n');
  expect(asMarkdown).toContain('\nEffect: report -> block.\n');
  // The live policy's value, once in the Markdown alone.
  expect(asText).toContain(`\nCompared with the live policy ${LIVE_ID}: ${LIVE_VALUE}.\n`);
  expect(asMarkdown).toContain(`\nCompared with the live policy \`${LIVE_ID}\`: \`${LIVE_VALUE}\`.\n`);
  // The malicious rule, from rules/, in both.
  const allows = `Allows 1 script classified malicious (${MALICIOUS_SCRIPT_RULE})`;
  expect(allows).toContain('js_integrity_score below 10');
  expect(asText).toContain(`\n${allows}:\n  - ${MALICIOUS.url} `);
  expect(asMarkdown).toContain(`\n**${markdown([allows])}**\n\n- \`${MALICIOUS.url}\` `);
  expect(asText).toContain('infrequent; malicious (js_integrity_score 4)');
  expect(asMarkdown).toContain('**infrequent**; **malicious** (js\\_integrity\\_score 4)');
  // Twelve blocked: ten shown, then how many more, in both.
  expect(asText).toContain('\nBlocks 12 scripts:\n');
  expect(asText).toContain('\n  - and 2 more\n');
  expect(asMarkdown).toContain('\n**Blocks 12 scripts**\n');
  expect(asMarkdown).toContain('\n- and 2 more\n');
  expect(asText).toContain('1 script judged on its first page only: the review reads at most');
  expect(asMarkdown).toContain('1 script judged on its first page only: the review reads at most');
});

test('a list holds no more lines than it shows, however many were kept', () => {
  const line = (i: number): DetectedLine => ({
    id: String(i),
    url: `https://cdn.example.net/${i}.js`,
    pages: [PAGE],
    pagesBasis: 'all',
    lastSeenAt: '2026-11-20T10:00:00.000Z',
    status: 'active',
    malicious: false,
  });
  const list = itemList(['Blocks'], { count: 5000, lines: Array.from({ length: 1000 }, (_, i) => line(i)) }, 'x');
  expect(list.lines).toHaveLength(10);
  expect(list.more).toBe(4990);
});

test("the review's other sentences: a resource not judged, pools left without alerts, a review not done", () => {
  const pools = poolsPhrase({
    key: 'urn',
    name: 'migrate',
    accountId: 'acc',
    pools: 3,
    uncovered: { count: 3, names: ['eu', 'us'] },
  });
  expect(text(pools)).toBe(
    'PoolNotificationMigration "migrate" removes the legacy alert e-mails of account acc, but 3 of its 3 pools are covered by no enabled HealthNotification of this stack: eu, us and 1 more.',
  );
  expect(markdown(pools)).toBe(
    'PoolNotificationMigration `migrate` removes the legacy alert e-mails of account `acc`, but 3 of its 3 pools are covered by no enabled HealthNotification of this stack: `eu`, `us` and 1 more.',
  );
  const unjudged = unjudgedPhrase({ name: 'checkout', reason: 'not known until the update: value' });
  expect(text(unjudged)).toBe('"checkout" cannot be judged: not known until the update: value');
  expect(markdown(unjudged)).toBe('`checkout` cannot be judged: not known until the update: value');
  expect(text(notDonePhrase('HTTP 401'))).toBe('The EdgeGuard review could not be done: HTTP 401');
  expect(markdown(notDonePhrase('HTTP 401'))).toBe('**The EdgeGuard review could not be done**: HTTP 401');
});
