import { createHash } from 'node:crypto';
import { auditHtml } from '../../../provider/format/audit-html';
import { auditMarkdown } from '../../../provider/format/audit-markdown';
import {
  htmlText as escapeHtml,
  markdownCode as codeSpan,
  markdownText as literal,
} from '../../../provider/format/escape';
import { auditEvidenceSchema, type AuditEvidence } from '../../../provider/payment/evidence-schema';
import {
  CARD,
  FAILING,
  HOSTILE_DESCRIPTION,
  HOSTILE_JUSTIFICATION,
  HOSTILE_URL,
  PASSING,
  V1,
  V2,
  V3,
  WIDGET,
} from '../../helpers/audit-evidence';

/**
 * edgeguard-audit's three formats of one fixed evidence (tests/helpers/audit-evidence.ts): the
 * Markdown's structure and escaping, the HTML's escaping and self-containment, the JSON against
 * its schema. (In a browser: tests/browser/audit-html.test.ts.)
 */

const scriptCount = (evidence: AuditEvidence) =>
  evidence.inventories.flatMap((inventory) => inventory.pages.flatMap((page) => page.scripts)).length;

describe('Markdown', () => {
  const markdown = auditMarkdown(FAILING);
  const lines = markdown.split('\n');

  /** The cells of a table row as GFM splits it: at every `|` without a backslash, code or not. */
  const cells = (row: string) => row.slice(1, -1).split(/(?<!\\)\|/);

  /** The text outside code spans (a span closes at the first run of as many backticks). */
  function outsideCode(text: string): string {
    return text.replace(/(?<!\\)(`+)(?:(?!\1)[\s\S])*?\1/g, '');
  }

  test('says what was audited, when, by which version, and the verdict', () => {
    expect(lines[0]).toBe('# Payment-page scripts of shop / prod: EdgeGuard audit');
    expect(markdown).toContain(
      'Evaluated at `2026-11-25T09:30:00.000Z` by edgeguard-audit 0.1.0, from the state of stack `prod` of project `shop`',
    );
    expect(markdown).toContain(
      '**Fail**: 1 script unauthorized, 1 pinned script changed, 2 scripts classified malicious (js\\_integrity\\_score below 10) or reported malicious (whatever the integrity). 1 script authorized without a pinned hash (unpinned), which passes',
    );
    expect(auditMarkdown(PASSING)).toContain(
      '**Pass**: every script seen on the payment pages is authorized, none changed and none malicious. 1 script authorized without a pinned hash (unpinned), which passes',
    );
  });

  test('the malicious scripts counted in the summary and in each page and inventory, whatever their integrity', () => {
    expect(markdown).toContain(
      ['| total | 5 |', '| malicious, whatever the integrity | 2 |', '', '## Inventory'].join('\n'),
    );
    expect(auditMarkdown(PASSING)).toContain('| malicious, whatever the integrity | 0 |');
    expect(markdown).toContain(
      '5 scripts (2 pinned, unchanged; 1 unpinned; 1 changed; 1 unauthorized), 2 malicious.\n',
    );
    expect(markdown).toContain(
      '**Scripts seen on this page: 2 scripts (2 pinned, unchanged; 0 unpinned; 0 changed; 0 unauthorized), 1 malicious**',
    );
    expect(markdown).toContain(
      '**Scripts seen on this page: 3 scripts (0 pinned, unchanged; 1 unpinned; 1 changed; 1 unauthorized), 1 malicious**',
    );
    expect(auditMarkdown(PASSING)).toContain(
      '(1 pinned, unchanged; 0 unpinned; 0 changed; 0 unauthorized), none malicious**',
    );
    const widget = lines.find((line) => line.startsWith(`| \`${WIDGET}\``))!;
    expect(widget).toContain('| **pinned, unchanged**: hash');
    expect(widget).toContain('JS integrity 60; **malicious (URL reported malicious (Malware))** |');
  });

  test('every table row has as many cells as its head, hostile values included', () => {
    let head: number | undefined;
    let rows = 0;
    for (const line of lines) {
      if (!line.startsWith('|')) {
        head = undefined;
        continue;
      }
      if (head === undefined) head = cells(line).length;
      else {
        expect({ line, cells: cells(line).length }).toEqual({ line, cells: head });
        rows += 1;
      }
    }
    // The counts (6 rows), two headers, five scripts, and each table's delimiter row.
    expect(rows).toBe(1 + 6 + 1 + 2 + 1 + 3 + 1 + 2);
  });

  test('one row per script on each page, its integrity, entry and justification in it', () => {
    const scriptRows = lines.filter((line) => /^\| `+ ?https:/.test(line));
    expect(scriptRows).toHaveLength(scriptCount(FAILING));
    const card = scriptRows.find((line) => line.startsWith(`| \`${CARD}\``))!;
    expect(card).toContain(`**changed**: pinned \`${V1}\`, live \`${V3}\`, changed at \`2026-11-20T10:00:00.000Z\``);
    expect(card).toContain(
      '`scripts[0]` `https://js.pay.example/v3/card.js`: Card form of the payment processor (owner: payments team)',
    );
    expect(card).toContain('first `2026-10-01T00:00:00.000Z`, last `2026-11-24T10:00:00.000Z`');
    expect(markdown).toContain(
      [
        `- \`${V3}\`, fetched \`2026-11-24T10:00:00.000Z\` (live)`,
        `- \`${V2}\`, fetched \`2026-11-20T10:00:00.000Z\``,
        `- \`${V1}\`, fetched \`2026-10-01T00:00:00.000Z\` (pinned)`,
      ].join('\n'),
    );
  });

  test('a value holding Markdown or HTML shows as written and renders nothing', () => {
    // The URL as one code span (its `|` escaped for the table), whatever it holds.
    expect(markdown).toContain(`| \`\` ${HOSTILE_URL.replace('|', '\\|')} \`\` (active`);
    // Outside code, no `<`, `*`, `_`, `[` or backtick a renderer could read (a `>` inside a line starts nothing).
    expect(outsideCode(markdown)).not.toMatch(/(?<!\\)[<[`]/);
    expect(markdown).toContain(literal(HOSTILE_JUSTIFICATION));
    expect(literal(HOSTILE_JUSTIFICATION)).toBe('Fraud \\<img src=x onerror=alert(2)> check \\| \\*team\\* \\`x\\`');
    expect(markdown).toContain(literal(HOSTILE_DESCRIPTION));
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x`')).toBe('`` `x` ``');
  });

  test('the headers in force with their mode and managing resource; a page without any says so', () => {
    expect(markdown).toContain('**CSP headers in force on `shop.example.com`: 1 enforced, 1 report only**');
    expect(markdown).toMatch(
      /^\| `p0000000000000000000000000000001` .*\| enforced \(allow\) \| `checkout-enforce` \|/m,
    );
    expect(markdown).toMatch(/^\| `p0000000000000000000000000000002` .*\| report only \(log\) \| not this stack \|/m);
    expect(markdown).toContain(
      '**No enabled CSP policy applies to `pay.example.com`: no header restricts the scripts of this page.**',
    );
  });

  test('stale entries listed apart, as no failure', () => {
    expect(markdown).toContain('(**not a failure**: a script may load rarely');
    expect(markdown).toContain('- `scripts[3]` `https://old.example/gone.js`: Retired \\<b>widget\\</b>');
  });
});

describe('HTML', () => {
  const page = auditHtml(FAILING);

  test('every tag and attribute is one the renderer writes: values from the service stay text', () => {
    const tags = [...page.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g)];
    const names = new Set(tags.map((tag) => tag[1]!.toLowerCase()));
    expect([...names].sort()).toEqual(
      [
        'body',
        'br',
        'code',
        'col',
        'colgroup',
        'h1',
        'h2',
        'h3',
        'head',
        'header',
        'html',
        'li',
        'meta',
        'p',
        'section',
        'strong',
        'style',
        'table',
        'tbody',
        'td',
        'th',
        'thead',
        'title',
        'tr',
        'ul',
      ].sort(),
    );
    const attributes = new Set(
      tags.flatMap((tag) => [...tag[2]!.matchAll(/\s([a-zA-Z-]+)="[^"]*"/g)].map((m) => m[1]!)),
    );
    expect([...attributes].sort()).toEqual(['charset', 'class', 'content', 'http-equiv', 'lang', 'name'].sort());
    expect(page).not.toMatch(/<script|<img|<\/style>.*<\/style>/is);
    expect(page).toContain(escapeHtml(HOSTILE_URL));
    expect(page).toContain(escapeHtml(HOSTILE_JUSTIFICATION));
    expect(page).toContain(escapeHtml(HOSTILE_DESCRIPTION));
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });

  test('self-contained: nothing to load, and its own policy forbids any load but its one style block', () => {
    // No attribute loads anything (the test above allows none that could); the style imports nothing.
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1]!;
    expect(style).not.toMatch(/url\(|@import/i);
    const hash = createHash('sha256').update(style).digest('base64');
    expect(page).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;sha256-${hash}&#39;; base-uri &#39;none&#39;; form-action &#39;none&#39;"`,
    );
  });

  test('a row per script on each page, marked by its integrity; print rules for A4 and a new sheet per page', () => {
    expect(page.match(/<tr class="script /g)).toHaveLength(scriptCount(FAILING));
    // Failing rows: changed, unauthorized (and malicious), and the malicious one whatever its integrity.
    expect(page.match(/<tr class="script [^"]+"/g)).toEqual([
      '<tr class="script changed"',
      '<tr class="script unauthorized malicious"',
      '<tr class="script unpinned"',
      '<tr class="script unchanged"',
      '<tr class="script unchanged malicious"',
    ]);
    expect(page).toMatch(/tr\.changed td, tr\.unauthorized td, tr\.malicious td \{ background: #fce8e6; \}/);
    expect(page).toMatch(/<td>malicious, whatever the integrity<\/td>\s*<td>2<\/td>/);
    expect(page.match(/<section class="payment-page">/g)).toHaveLength(2);
    expect(page).toContain('<title>Payment-page scripts of shop / prod: EdgeGuard audit</title>');
    expect(page).toContain('@page { size: A4;');
    expect(page).toMatch(/@media print \{[\s\S]*section\.payment-page \{ break-before: page; \}/);
  });
});

describe('JSON', () => {
  test('the evidence as written is what its schema reads back', () => {
    for (const evidence of [FAILING, PASSING])
      expect(auditEvidenceSchema.parse(JSON.parse(JSON.stringify(evidence)))).toEqual(evidence);
  });

  test('the schema refuses a field it does not define and an integrity it does not know', () => {
    expect(auditEvidenceSchema.safeParse({ ...FAILING, extra: 1 }).success).toBe(false);
    const [inventory] = FAILING.inventories;
    const [page] = inventory!.pages;
    const wrong = {
      ...FAILING,
      inventories: [{ ...inventory, pages: [{ ...page, scripts: [{ ...page!.scripts[0], integrity: 'tampered' }] }] }],
    };
    const parsed = auditEvidenceSchema.safeParse(wrong);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['inventories', 0, 'pages', 0, 'scripts', 0, 'integrity']);
  });
});
