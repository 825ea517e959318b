import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import { unknownCheckingProxy, type PolicyResource } from '@pulumi/policy';
import { clientFrom } from '../../../provider/client/shared';
import { auditHtml } from '../../../provider/format/audit-html';
import { auditMarkdown } from '../../../provider/format/audit-markdown';
import { summaryText } from '../../../provider/format/audit-wording';
import { jsonText, shown } from '../../../provider/format/escape';
import { renderMarkdown } from '../../../provider/format/review-markdown';
import { reviewSarif } from '../../../provider/format/sarif';
import { exitStatusOf, gatherEvidence } from '../../../provider/payment/evidence';
import type { AuditEvidence } from '../../../provider/payment/evidence-schema';
import { PACK_POLICIES } from '../../../provider/pack/policies';
import type { ReportedViolation, ReviewReport } from '../../../provider/review/report';
import { parseScriptInventory } from '../../../rules/inventory';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, type TestEmulator } from '../../helpers/emulator';
import { cspPolicyResource, packEnvironment, stackArgs, type PackEnvironment } from '../../helpers/pack';
import { runToEnd } from '../../helpers/process';
import { REPO } from '../../helpers/repo';
import { reviewReport } from '../../helpers/review-report';
import { multitoolFindings } from '../../helpers/sarif-multitool';

/**
 * Every output fed detected script URLs that whoever serves a script writes (issue 31, item 3):
 * escape sequences that recolour a terminal or erase its line, carriage returns and newlines,
 * backticks, pipes, a Markdown link and image, a mention, an HTML tag. A zone is seeded with them
 * in the emulator and read over HTTP, and the same zone with plain URLs in their place; each
 * output (the pack's messages, the review's Markdown, JSON and SARIF, the audit's Markdown, HTML,
 * JSON and stderr, the programs and stderr of edgeguard-csp and edgeguard-inventory) must show each
 * URL as seen, with its hidden characters escaped (`shown`), render nothing from it (Markdown
 * through markdown-it: the same tokens as for the plain URLs), and end as it would for the plain
 * URLs.
 */

const PAY_HOST = 'pay.example.com';
const SHOP_HOST = 'shop.example.com';
const PAY = `https://${PAY_HOST}/checkout`;
const SHOP = `https://${SHOP_HOST}/cart`;
const CDN = 'https://cdn.hostile.example';

/** The URLs: one payload each, and one with all of them. */
const HOSTILE = [
  `${CDN}/red.js?\u001b[31mred\u001b[0m`,
  `${CDN}/erase.js?\u001b[2K\rapproved`,
  `${CDN}/fence.js?x\r\n\`\`\`\n## Approved by security\n`,
  `${CDN}/ticks.js?\`a\`\`b\``,
  `${CDN}/pipe.js?a|b||c`,
  `${CDN}/link.js?[link](https://evil.example)`,
  `${CDN}/image.js?![img](https://evil.example/x.png)`,
  `${CDN}/mention.js?@octocat`,
  `${CDN}/html.js?<img src=x onerror=alert(1)>\u009b31m\u2028`,
];
/** The same scripts without their payloads, in the same order: what the outputs' structure must be the same as. */
const PLAIN = HOSTILE.map((url) => url.split('?')[0]!);

/** Characters that must never reach an output raw. */
// eslint-disable-next-line no-control-regex -- what must not be in an output
const RAW_HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

let emu: TestEmulator;
let pack: PackEnvironment;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-hostile-'));
const client = () => clientFrom({ explicit: { baseUrl: emu.baseUrl, apiToken: TEST_TOKEN } });

beforeAll(async () => {
  emu = await startTestEmulator();
  pack = packEnvironment(emu, 'edgeguard-hostile-pack-');
});
afterAll(async () => {
  pack?.restore();
  fs.rmSync(dir, { recursive: true, force: true });
  await emu?.close();
});

/** The URL that page security classifies malicious, and an entry of the inventory authorizes. */
const MALICIOUS = 7;

/**
 * Two zones that load `urls`, one of them classified malicious: on the shop page of the first,
 * with one more script over `http:`, which the browser blocks as mixed content there; on the
 * payment page of the second.
 */
async function seededZones(urls: readonly string[]): Promise<{ shop: string; pay: string }> {
  const [shop, pay] = [randomBytes(16).toString('hex'), randomBytes(16).toString('hex')] as [string, string];
  const scripts = (zone: string, page: string) =>
    urls.map((url, i) => ({
      zone_id: zone,
      url,
      hash: String(i).padStart(2, '0').repeat(32),
      js_integrity_score: i === MALICIOUS ? 4 : 60,
      page_urls: [page],
    }));
  await emu.seed({
    zones: [shop, pay].map((id) => ({ id, name: 'example.com', account_id: ACCOUNT_ID })),
    scripts: [
      ...scripts(shop, SHOP),
      { zone_id: shop, url: 'http://cdn.hostile.example/legacy.js', js_integrity_score: 60, page_urls: [SHOP] },
      ...scripts(pay, PAY),
    ],
  });
  return { shop, pay };
}

const inventoryUrn = 'urn:pulumi:dev::shop::pulumi-nodejs:dynamic/edgeguard:ScriptInventory::pay-scripts';

/** The inventory's entries: the card form, and the malicious script. */
const entries = (urls: readonly string[]) => [
  { url: 'https://js.pay.example/card.js', justification: 'Card form' },
  { url: urls[MALICIOUS]!, justification: 'Analytics' },
];

/** The stack: a CSP policy on the shop host that blocks them all, and an inventory of the payment page that authorizes one, the malicious one. */
function resources(zones: { shop: string; pay: string }, urls: readonly string[]): PolicyResource[] {
  return [
    cspPolicyResource('shop-csp', { zoneId: zones.shop, host: SHOP_HOST, value: "script-src 'self'" }),
    {
      type: 'pulumi-nodejs:dynamic/edgeguard:ScriptInventory',
      urn: inventoryUrn,
      name: 'pay-scripts',
      props: unknownCheckingProxy({
        zoneId: zones.pay,
        pages: [`${PAY_HOST}/checkout`],
        scripts: entries(urls),
      }),
    } as unknown as PolicyResource,
  ];
}

/** What the pack reports on the zone of `urls`, and the review `edgeguard-review` makes of it. */
async function reviewed(urls: readonly string[]): Promise<{ messages: string[]; report: ReviewReport }> {
  const args = stackArgs(resources(await seededZones(urls), urls));
  const violations: ReportedViolation[] = [];
  for (const policy of PACK_POLICIES)
    await policy.validateStack(args, (message, urn) => {
      violations.push({
        policy: policy.name,
        level: policy.enforcementLevel === 'mandatory' ? 'mandatory' : 'advisory',
        ...(urn !== undefined ? { urn, resource: urn.split('::').at(-1)! } : {}),
        message,
      });
    });
  const output = pack.output();
  expect(output.error).toBeUndefined();
  const report = reviewReport({
    exitCode: violations.some((violation) => violation.level === 'mandatory') ? 1 : 0,
    policies: output.review!.policies,
    inventories: output.review!.inventories,
    violations,
  });
  return { messages: violations.map((violation) => violation.message), report };
}

async function audited(zone: string, urls: readonly string[]): Promise<AuditEvidence> {
  const parsed = parseScriptInventory({ pages: [`${PAY_HOST}/checkout`], scripts: entries(urls) });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return gatherEvidence(client(), {
    project: 'shop',
    stack: 'dev',
    toolVersion: '0.1.0',
    inventories: [{ name: 'pay-scripts', urn: inventoryUrn, zoneId: zone, inventory: parsed.value }],
    policies: [],
    now: () => new Date('2026-11-27T00:00:00.000Z'),
  });
}

// ---- Markdown as a forge renders it ----

const md = new MarkdownIt({ html: true, linkify: true });

/** The kinds of token that render something other than text: what no URL may make. */
const RENDERING =
  /^(link_open|image|heading_open|html_inline|html_block|fence|code_block|blockquote_open|table_open|tr_open|td_open|th_open|em_open|strong_open|s_open)$/;

/** Every token of `markdown`, nested ones included. */
function tokens(markdown: string): Token[] {
  const all: Token[] = [];
  const walk = (list: Token[]) => {
    for (const token of list) {
      all.push(token);
      if (token.children !== null) walk(token.children);
    }
  };
  walk(md.parse(markdown, {}));
  return all;
}

/** The structure of a rendering: the kinds of every token that renders something, in order. */
const structure = (markdown: string) =>
  tokens(markdown)
    .filter((token) => RENDERING.test(token.type))
    .map((token) => token.type);

/** The text a reader sees in code: code spans and fenced blocks. */
const codeShown = (markdown: string) =>
  tokens(markdown)
    .filter((token) => token.type === 'code_inline' || token.type === 'fence')
    .map((token) => token.content)
    .join('\n');

/** The text a reader sees outside code. */
const textShown = (markdown: string) =>
  tokens(markdown)
    .filter((token) => token.type === 'text')
    .map((token) => token.content)
    .join('\n');

/** Checks a Markdown output: the same structure as the plain one's, each URL shown as seen in code, nothing of it outside code. */
function expectInertMarkdown(hostile: string, plain: string): void {
  expect(hostile).not.toMatch(RAW_HIDDEN);
  expect(structure(hostile)).toEqual(structure(plain));
  const code = codeShown(hostile);
  for (const url of HOSTILE) expect(code).toContain(shown(url));
  const text = textShown(hostile);
  for (const payload of ['@octocat', 'evil.example', 'Approved by security', '<img', 'onerror'])
    expect(text).not.toContain(payload);
  const html = md.render(hostile);
  expect(html).not.toMatch(/<(a|img|h[1-6])\b[^>]*>[^<]*(evil|octocat|Approved)/);
  expect(html).not.toContain('<img');
}

// ---- The review ----

describe('the review of a zone whose detected URLs carry escape sequences and markup', () => {
  let hostile: Awaited<ReturnType<typeof reviewed>>;
  let plain: Awaited<ReturnType<typeof reviewed>>;
  beforeAll(async () => {
    hostile = await reviewed(HOSTILE);
    plain = await reviewed(PLAIN);
  });

  test('the pack finds what it finds for plain URLs, so the review exits as it would', () => {
    const found = (run: typeof hostile) => run.report.violations.map((v) => [v.policy, v.level, v.resource]);
    expect(found(hostile)).toEqual(found(plain));
    expect(found(hostile).map(([policy]) => policy)).toEqual(
      expect.arrayContaining([
        'csp-blocks-detected-scripts',
        'payment-script-unauthorized',
        'payment-script-malicious',
      ]),
    );
    expect(hostile.report.exitCode).toBe(1);
  });

  test("the pack's messages, which the engine prints: each URL shown, no control character", () => {
    const all = hostile.messages.join('\n');
    expect(all).not.toMatch(RAW_HIDDEN);
    for (const url of HOSTILE) expect(all).toContain(shown(url));
    expect(shown(HOSTILE[0]!)).toBe(`${CDN}/red.js?\\x1b[31mred\\x1b[0m`);
    expect(shown(HOSTILE[1]!)).toBe(`${CDN}/erase.js?\\x1b[2K\\rapproved`);
  });

  test("the review's Markdown: each URL as seen in code, nothing rendered from it", () => {
    const markdown = renderMarkdown(hostile.report);
    expectInertMarkdown(markdown, renderMarkdown(plain.report));
    // A backtick stays a backtick: the code span is fenced longer than any run in the URL.
    expect(markdown).toContain(`\`\`\` ${shown(HOSTILE[3]!)} \`\`\``);
  });

  test("the review's JSON: the same report read back, nothing raw a terminal acts on", () => {
    const json = jsonText(hostile.report);
    expect(json).not.toMatch(RAW_HIDDEN);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(hostile.report)));
  });

  test("the review's SARIF: no embedded link, no control character, and valid for the SARIF Multitool and code scanning", () => {
    const text = jsonText(reviewSarif(hostile.report, ''));
    expect(text).not.toMatch(RAW_HIDDEN);
    const log = JSON.parse(text) as { runs: Array<{ results: Array<{ message: { text: string } }> }> };
    for (const result of log.runs[0]!.results) {
      // SARIF reads `[text](target)` as a link: every bracket of a message is escaped.
      expect(result.message.text).not.toMatch(/(?<!\\)[[\]]/);
      expect(result.message.text).not.toMatch(RAW_HIDDEN);
    }
    const file = path.join(dir, 'review.sarif');
    fs.writeFileSync(file, text);
    expect(multitoolFindings(file, dir)).toEqual([]);
  });
});

// ---- The audit ----

describe('the audit of that zone', () => {
  let hostile: AuditEvidence;
  let plain: AuditEvidence;
  beforeAll(async () => {
    hostile = await audited((await seededZones(HOSTILE)).pay, HOSTILE);
    plain = await audited((await seededZones(PLAIN)).pay, PLAIN);
  });

  test('it fails as it would for plain URLs, and its stderr shows each URL on its line', () => {
    expect(exitStatusOf(hostile)).toBe(exitStatusOf(plain));
    expect(exitStatusOf(hostile)).toBe(1);
    const stderr = summaryText(hostile);
    expect(stderr).not.toMatch(RAW_HIDDEN);
    for (const url of HOSTILE) expect(stderr).toContain(shown(url));
    expect(stderr.split('\n')).toHaveLength(summaryText(plain).split('\n').length);
  });

  test('Markdown: each URL as seen in code, nothing rendered from it', () => {
    expectInertMarkdown(auditMarkdown(hostile), auditMarkdown(plain));
  });

  test('HTML: the same elements as for plain URLs, each URL shown as text', () => {
    const page = auditHtml(hostile);
    expect(page).not.toMatch(RAW_HIDDEN);
    const tags = (html: string) => [...html.matchAll(/<([a-z0-9]+)/g)].map((match) => match[1]);
    expect(tags(page)).toEqual(tags(auditHtml(plain)));
    expect(page).toContain('&#60;img src=x onerror=alert(1)&#62;\\x9b31m\\u2028');
  });

  test('JSON: the evidence read back, nothing raw a terminal acts on', () => {
    const json = jsonText(hostile);
    expect(json).not.toMatch(RAW_HIDDEN);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(hostile)));
  });
});

// ---- The programs ----

describe('the programs edgeguard-csp and edgeguard-inventory write from that zone', () => {
  const run = (bin: string, args: string[]) =>
    runToEnd(process.execPath, [path.join(REPO, 'dist', 'provider', 'cli', bin), ...args], {
      env: { EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: TEST_TOKEN },
    });

  test.each([
    ['csp.js', (zones: { shop: string }) => ['--zone', zones.shop, '--host', SHOP_HOST]],
    ['inventory.js', (zones: { pay: string }) => ['--zone', zones.pay, '--page', `${PAY_HOST}/checkout`]],
  ])('%s: its program and stderr carry no raw control character, and it ends as for plain URLs', async (bin, args) => {
    const hostileZone = await seededZones(HOSTILE);
    const plainZone = await seededZones(PLAIN);
    const [hostile, plain] = await Promise.all([run(bin, args(hostileZone)), run(bin, args(plainZone))]);
    expect(hostile.status).toBe(plain.status);
    // The malicious script is in both programs: an entry of the inventory, a script the policy leaves out.
    expect(hostile.stdout).toContain(HOSTILE[MALICIOUS]);
    expect(hostile.stdout).not.toMatch(RAW_HIDDEN);
    expect(hostile.stderr).not.toMatch(RAW_HIDDEN);
    // The program has as many lines as the plain one's: no URL ended a comment or a string early.
    expect(hostile.stdout.split('\n').length).toBe(plain.stdout.split('\n').length);
    expect(hostile.stderr.split('\n').length).toBe(plain.stderr.split('\n').length);
  });
});
