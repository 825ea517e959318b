import { shownLines } from '../format/escape';

/**
 * The few shapes of TypeScript that `edgeguard-import`, `edgeguard-csp` and `edgeguard-inventory`
 * write (comments, constants, and `new edgeguard.X("name", { ... })` statements whose values are
 * strings, booleans, lists of strings, flat objects and lists of them), laid out exactly as
 * Prettier lays them out with its default options, so the file a team commits is already
 * formatted and Prettier is not needed to run the tool.
 * Every string goes through {@link stringLiteral}: nothing read from the service is pasted into
 * code unescaped.
 */

/** Prettier's default print width, which the code is laid out for. */
export const PRINT_WIDTH = 80;
const INDENT = '  ';

/** A reference to a constant of the program, written as a shorthand property (`zoneId,`). */
export interface Ref {
  readonly ref: string;
}

/**
 * An expression the writer made itself, written as it is (`pulumi.interpolate\`...\``), on the
 * line of its key: never text read from the service or given by a user, which goes through
 * {@link stringLiteral}.
 */
export interface Code {
  readonly code: string;
}

/** An object whose values are strings and booleans, written one property per line in a list. */
export type FlatObject = { readonly [key: string]: string | boolean };

/**
 * A property value: a string, a boolean, a list of strings, a flat object, a list of flat objects
 * (each written expanded, as Prettier keeps an object it finds expanded), a {@link Ref} or
 * {@link Code}.
 */
export type Value = string | boolean | readonly string[] | readonly FlatObject[] | Ref | Code | FlatObject;

/**
 * What JSON leaves raw but a string literal must not hold: U+2028 and U+2029, which end a line in
 * JavaScript (and so a `//` comment), DEL and the C1 controls (U+009B starts a terminal's sequence
 * when the file is printed), and the bidirectional marks that make a line of code read other than
 * it runs.
 */
const LINE_SEPARATORS = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const escapeCode = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` as a string literal, quoted as Prettier quotes it: double quotes unless the text holds
 * more double than single quotes. Escapes are JSON's (backslashes, control characters, lone
 * surrogates), which TypeScript reads the same way, and U+2028/U+2029 are escaped too, so that a
 * literal never spans two lines, even inside a comment.
 */
export function stringLiteral(text: string): string {
  const json = JSON.stringify(text).replace(LINE_SEPARATORS, escapeCode);
  const doubles = text.split('"').length - 1;
  const singles = text.split("'").length - 1;
  if (doubles <= singles) return json;
  const body = json
    .slice(1, -1)
    .replace(/\\(.)|'/g, (match, escaped: string | undefined) =>
      escaped === undefined ? "\\'" : escaped === '"' ? '"' : match,
    );
  return `'${body}'`;
}

function isRef(value: Value): value is Ref {
  return typeof value === 'object' && !Array.isArray(value) && 'ref' in value && typeof value.ref === 'string';
}

function isCode(value: Value): value is Code {
  return typeof value === 'object' && !Array.isArray(value) && 'code' in value && typeof value.code === 'string';
}

function isObjectList(value: Value): value is readonly FlatObject[] {
  return Array.isArray(value) && value.some((item) => typeof item === 'object');
}

function scalar(value: string | boolean): string {
  return typeof value === 'boolean' ? String(value) : stringLiteral(value);
}

/** `value` on one line. */
function flat(value: Exclude<Value, Ref | Code | readonly FlatObject[]>): string {
  if (typeof value === 'string' || typeof value === 'boolean') return scalar(value);
  if (Array.isArray(value)) return `[${(value as readonly string[]).map(stringLiteral).join(', ')}]`;
  const entries = Object.entries(value as Record<string, string | boolean>);
  return entries.length === 0 ? '{}' : `{ ${entries.map(([key, item]) => `${key}: ${scalar(item)}`).join(', ')} }`;
}

/**
 * Prettier never moves a value to the line after a key this short (its "short key": narrower than
 * the tab width plus 3), since that would gain almost nothing.
 */
const SHORT_KEY = INDENT.length + 3;

/**
 * The lines of `key: value,` at `depth`: on one line when it fits the print width; otherwise, as
 * Prettier breaks them, a string on the next line (unless its key is short), a list or an object
 * one item per line.
 */
function property(key: string, value: Value, depth: number): string[] {
  const indent = INDENT.repeat(depth);
  if (isRef(value)) return [`${indent}${value.ref === key ? key : `${key}: ${value.ref}`},`];
  if (isCode(value)) return [`${indent}${key}: ${value.code},`];
  const inner = INDENT.repeat(depth + 1);
  if (isObjectList(value)) {
    if (value.length === 0) return [`${indent}${key}: [],`];
    return [
      `${indent}${key}: [`,
      ...value.flatMap((item) => [
        `${inner}{`,
        ...Object.entries(item).flatMap(([name, field]) => property(name, field, depth + 2)),
        `${inner}},`,
      ]),
      `${indent}],`,
    ];
  }
  const line = `${indent}${key}: ${flat(value)},`;
  if (line.length <= PRINT_WIDTH || typeof value === 'boolean') return [line];
  if (typeof value === 'string')
    return key.length < SHORT_KEY ? [line] : [`${indent}${key}:`, `${inner}${flat(value)},`];
  if (Array.isArray(value)) {
    const items = value as readonly string[];
    return [`${indent}${key}: [`, ...items.map((item) => `${inner}${stringLiteral(item)},`), `${indent}],`];
  }
  const entries = Object.entries(value as Record<string, string | boolean>);
  return [`${indent}${key}: {`, ...entries.map(([name, item]) => `${inner}${name}: ${scalar(item)},`), `${indent}},`];
}

/**
 * `new edgeguard.<type>("<name>", { ... });` with one property per line. The name must leave the
 * first line within the print width (a longer one makes Prettier put each argument on its own line).
 */
export function newResource(type: string, name: string, properties: ReadonlyArray<readonly [string, Value]>): string[] {
  const first = `new edgeguard.${type}(${stringLiteral(name)}, {`;
  if (first.length > PRINT_WIDTH) throw new Error(`resource name too long for one line: ${first}`);
  return [first, ...properties.flatMap(([key, value]) => property(key, value, 1)), '});'];
}

/** `const <name> = "<value>";` */
export function constant(name: string, value: string): string {
  return `const ${name} = ${stringLiteral(value)};`;
}

/**
 * `text` as `//` comment lines (or `marker` ones: `#` for YAML): a newline starts a new line, and
 * unless `wrap` is false, words are wrapped at the print width (a word longer than a line keeps
 * its own line). Any other character that would end or garble a line is written as its escape
 * (`shownLines` of `../format/escape.ts`, as every output shows data), so text read from the
 * service cannot end the comment.
 */
export function comment(
  text: string,
  { wrap = true, marker = '//' }: { wrap?: boolean; marker?: string } = {},
): string[] {
  const lines: string[] = [];
  for (const paragraph of shownLines(text).split('\n')) {
    if (!wrap) {
      lines.push(paragraph === '' ? marker : `${marker} ${paragraph}`);
      continue;
    }
    let line = marker;
    for (const word of paragraph.split(' ').filter((part) => part !== '')) {
      if (line !== marker && line.length + 1 + word.length > PRINT_WIDTH) {
        lines.push(line);
        line = marker;
      }
      line += ` ${word}`;
    }
    lines.push(line);
  }
  return lines;
}

/** Code lines turned into comment lines, to show a declaration that is left out. */
export function commentedOut(code: readonly string[]): string[] {
  return code.map((line) => `// ${line}`);
}
