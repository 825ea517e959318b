import MarkdownIt from 'markdown-it';
import {
  htmlText,
  jsonText,
  markdownCell,
  markdownCode,
  markdownFence,
  markdownText,
  OwnMessageError,
  sarifText,
  shown,
  shownLines,
} from '../../../provider/format/escape';
import { couldNotBeDone } from '../../../provider/cli/runner';

/**
 * The one function per output kind that every formatter and tool shows data through
 * (provider/format/escape.ts, issue 31, item 3), with exact expectations; markdown-it renders the
 * Markdown ones as a forge would, to show that what they write renders as the text itself. And the
 * tools' runner (provider/cli/runner.ts): what keeps its lines on stderr and what does not.
 */

const md = new MarkdownIt({ html: true, linkify: true });
/** What a reader sees of inline Markdown: its HTML, one paragraph. */
const inline = (markdown: string) => md.renderInline(markdown);

test('terminal text: every hidden character as an escape, nothing else changed', () => {
  expect(shown('a\u001b[31mb\u001b[2K\rc\nd\te\u007f\u009b\u2028\u202e`|\\')).toBe(
    'a\\x1b[31mb\\x1b[2K\\rc\\nd\\te\\x7f\\x9b\\u2028\\u202e`|\\',
  );
  expect(shownLines('line one\nline \u001b two\r')).toBe('line one\nline \\x1b two\\r');
});

test('a Markdown code span shows its text exactly, however many backticks it holds', () => {
  expect(markdownCode('a`b')).toBe('``a`b``');
  expect(markdownCode('`x`')).toBe('`` `x` ``');
  expect(markdownCode(' padded ')).toBe('`  padded  `');
  for (const text of ['a`b', '`x`', '``` fence', 'a``b```c', ' padded ', '[x](https://evil) @octocat <img src=x>'])
    expect(inline(markdownCode(text))).toBe(`<code>${md.utils.escapeHtml(text)}</code>`);
  expect(inline(markdownCode('a\r\nb\u001b'))).toBe('<code>a\\r\\nb\\x1b</code>');
});

test('Markdown text renders as itself: no emphasis, link, image, autolink, HTML or entity', () => {
  const text =
    '*a* _b_ [l](https://evil.example) ![i](x.png) <img src=x> &amp; https://evil.example www.evil.example ~~s~~ a|b';
  expect(inline(markdownText(text))).toBe(md.utils.escapeHtml(text));
  expect(markdownText('# heading')).toBe('\\# heading');
  expect(markdownText('> quote')).toBe('\\> quote');
  expect(markdownText('a -> b')).toBe('a -> b');
});

test('in a table cell, a code span and text keep their `|`: the row keeps its cells', () => {
  const table = (cell: string) => md.render(`| a | b |\n|---|---|\n| ${cell} | end |`);
  const withCode = table(markdownCell(markdownCode('x|y\\|z')));
  expect(withCode).toContain('<td><code>x|y\\|z</code></td>\n<td>end</td>');
  expect(table(markdownCell(markdownText('x|y')))).toContain('<td>x|y</td>\n<td>end</td>');
});

test('a fenced block is longer than any run of backticks in it, and no line ends early', () => {
  const lines = markdownFence('msg\n```\n## Approved\r', '  ');
  expect(lines).toEqual(['  ````', '  msg', '  ```', '  ## Approved\\r', '  ````']);
  const tokens = md.parse(lines.map((line) => line.slice(2)).join('\n'), {});
  expect(tokens.map((token) => token.type)).toEqual(['fence']);
});

test('HTML: markup characters as entities, hidden characters as escapes', () => {
  expect(htmlText(`<img src=x onerror="alert('1')">&\u001b`)).toBe(
    '&#60;img src=x onerror=&#34;alert(&#39;1&#39;)&#34;&#62;&#38;\\x1b',
  );
});

test('a SARIF message: no embedded link, its lines kept', () => {
  expect(sarifText('see [x](1)\nand \\ \u001b')).toBe('see \\[x\\](1)\nand \\\\ \\\\x1b');
});

test('JSON: the same value read back, with no raw character a terminal acts on', () => {
  const value = { url: 'a\u001b\u009b\u2028\u202e\n"' };
  const json = jsonText(value);
  expect(JSON.parse(json)).toEqual(value);
  expect(json).toBe('{\n  "url": "a\\u001b\\u009b\\u2028\\u202e\\n\\""\n}');
});

test("a tool's failure: its own words keep their lines; a reason that may quote the service or the engine is one line", () => {
  const failure = couldNotBeDone('review');
  expect(failure.status).toBe(2);
  // The package's words, lines kept; the data put in them was escaped there, and a hidden character
  // that reached them anyway is still an escape.
  const url = 'https://cdn.example.com/x.js\nedgeguard-review: no mandatory policy violation';
  expect(failure.message(new OwnMessageError(`something is missing: ${shown(url)}\nget it with\u001b[2K this`))).toBe(
    'the review could not be done: something is missing: https://cdn.example.com/x.js\\nedgeguard-review: no mandatory policy violation\nget it with\\x1b[2K this',
  );
  // Any other error: one line, as the service or the engine may have written it.
  expect(
    failure.message(new Error('HTTP 401: [10000] bad token\nedgeguard-review: no mandatory policy violation')),
  ).toBe('the review could not be done: HTTP 401: [10000] bad token\\nedgeguard-review: no mandatory policy violation');
  // With a tool's own reading of the reason (the audit's and the probe's), the same rule.
  const audit = couldNotBeDone('audit', (error) => `pulumi: ${(error as Error).message}`);
  expect(audit.message(new OwnMessageError('a\nb'))).toBe('the audit could not be done: pulumi: a\nb');
  expect(audit.message(new Error('a\nb'))).toBe('the audit could not be done: pulumi: a\\nb');
});
