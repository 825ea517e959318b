/**
 * Text from the service or the stack (URLs, hosts, hashes, categories, descriptions, ids) as each
 * output shows it: one function per output kind, and every formatter and tool goes through them,
 * so a detected script's URL, which whoever serves the script writes, is data in every output and
 * never markup or a terminal's command (issue 31, item 3).
 *
 * The rule is the same everywhere: the text is shown as it is, character for character, except the
 * characters that are invisible or act on what shows them (control characters, line and paragraph
 * separators, the marks that reorder text), which are shown as escapes (`\x1b`, `\r`, `\n`,
 * `\u202e`). Nothing else is replaced: a backtick stays a backtick.
 */

/**
 * What must never reach an output raw: C0 controls (ESC starts a terminal's sequences, CR and LF
 * end lines), DEL, C1 controls (CSI is U+009B), U+2028 and U+2029 (line ends in JavaScript), and
 * the bidirectional marks that make a line read other than it is stored (U+200E, U+200F,
 * U+202A-U+202E, U+2066-U+2069).
 */
// eslint-disable-next-line no-control-regex -- control characters are what this escapes
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** {@link HIDDEN} but the line feed, for text whose lines are the output's own. */
const HIDDEN_BUT_NEWLINE =
  // eslint-disable-next-line no-control-regex -- as HIDDEN
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOf(char: string): string {
  const code = char.charCodeAt(0);
  return SHORT_ESCAPES[char] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`);
}

/**
 * Terminal and log text (stderr of every tool, the pack's messages, which the engine prints): the
 * text on one line, with {@link HIDDEN} characters as escapes.
 */
export function shown(text: string): string {
  return text.replace(HIDDEN, escapeOf);
}

/** Text made of lines the output itself wrote (a message, a report), with any hidden character but the line feed as an escape. */
export function shownLines(text: string): string {
  return text.replace(HIDDEN_BUT_NEWLINE, escapeOf);
}

/**
 * An error whose message is the package's own words, written in lines for a person to read (what
 * is missing and how to get it), with any data in it escaped ({@link shown}) where it was put in.
 * The tools print it with its lines ({@link shownLines}); the message of any other error may quote
 * the service, a page or the engine, and is shown on one line.
 */
export class OwnMessageError extends Error {
  override name = 'OwnMessageError';
}

// ---- Markdown ----

/**
 * Markdown inline code showing `text` exactly, on one line: fenced with more backticks than its
 * longest run, so no backtick in it ends the span, and padded with a space when it starts or ends
 * with a backtick (CommonMark strips one space each side). Code spans take no Markdown, no HTML,
 * no link, no mention: whatever the text holds, it renders as text.
 */
export function markdownCode(text: string): string {
  const flat = shown(text);
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || /^ .* $/.test(flat) ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * Markdown text showing `text` literally, on one line: every ASCII punctuation character that can
 * start emphasis, code, a link or an image (`[`), HTML or an autolink (`<`), an entity, a quote or
 * a heading (`>`, `#`, first, should the text begin a list item), an e-mail autolink (`@`), or end a
 * table cell is backslash-escaped (CommonMark allows it before any ASCII punctuation), and so is
 * the colon of `scheme://` and the dot of `www.`, which GitHub makes links of in plain text. Words
 * with such characters render as written; a value from the service is better shown as code
 * ({@link markdownCode}), which no forge reads a mention in.
 */
export function markdownText(text: string): string {
  return shown(text).replace(/[\\`*_[\]<&|~@]|^[#>]|:(?=\/\/)|(?<=\bwww)\./gi, '\\$&');
}

/**
 * Markdown (built by the two functions above) as the content of a table cell: GitHub's tables split
 * a row at every `|` not preceded by a backslash, before code spans are read, and both GitHub and
 * CommonMark's table extension drop that backslash again, so a code span shows its `|` as it is.
 */
export function markdownCell(markdown: string): string {
  return markdown.replace(/\|/g, '\\|');
}

/**
 * Lines the output wrote (a policy's message, say) as a fenced code block, each line indented by
 * `indent`: the fence longer than any run of backticks in them, so no line closes it, and hidden
 * characters as escapes, so no carriage return ends a line early.
 */
export function markdownFence(text: string, indent = ''): string[] {
  const lines = shownLines(text).split('\n');
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return [`${indent}${fence}`, ...lines.map((line) => `${indent}${line}`), `${indent}${fence}`];
}

// ---- HTML ----

/**
 * HTML content or a quoted attribute: `&`, `<`, `>`, `"` and `'` as numeric entities, and
 * {@link HIDDEN} characters as escapes.
 */
export function htmlText(text: string): string {
  return shown(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// ---- SARIF and JSON ----

/**
 * A SARIF message's text (`message.text`), whose lines the review wrote: hidden characters but the
 * line feed as escapes, and `\`, `[` and `]` backslash-escaped, since SARIF reads `[text](id)` as
 * an embedded link (SARIF 2.1.0, 3.11.6) and code scanning shows it as one.
 */
export function sarifText(text: string): string {
  return shownLines(text).replace(/[\\[\]]/g, '\\$&');
}

/** The {@link HIDDEN} characters JSON.stringify leaves raw; outside strings, JSON text is ASCII. */
const HIDDEN_IN_JSON = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A value as JSON text, indented by two: JSON's own escapes of the C0 controls, plus DEL, the C1
 * controls and the other {@link HIDDEN} characters as `\u` escapes. The same value, read back;
 * nothing a terminal acts on when it is printed.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    HIDDEN_IN_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
