import * as fs from 'node:fs';
import { urlOrigin, type Detected } from './evaluate';
import type { ListedItem } from './listed';

/**
 * A detected listing kept in a file, a line per {@link LINE_ITEMS} items, as the review's read ahead
 * keeps what it reads (`./read-ahead.ts`).
 */

/**
 * One listing read ahead: its items, part of a page at a time from its file, then, for a listing its
 * reader left unfinished, the pages after those read by the review's own requests; and the
 * requests it took.
 */
export interface ReadListing {
  /** Its items read so far: all of them once {@link pages} has ended. */
  count: number;
  /** List requests asked for: one per page, at least one (and, for a listing aborted, any asked and not given). */
  requests: number;
  /** Read to its end by the read ahead; else read on by the review. */
  complete: boolean;
  /** The items, in the order the service listed them, a part of a page at a time. */
  pages(): AsyncIterable<ListedItem[]>;
}

/**
 * A listed item as a line's entry: [host, id, url, origin, status, first page, last seen, score or
 * reports], its host, URL's origin (`urlOrigin`, -1 for none), status and first page as indexes
 * into the texts its page shares ({@link Line}).
 */
type Row = [number, string, string, number, number, number, string, number | string[] | null];

/**
 * Part of a page as a line of its file: the hosts, URL origins, statuses and first pages of its
 * items, each once, and their rows. A page's items come from few hosts, origins and pages: read
 * back, they share one string for each, which the judging hashes once to find its host's judge, its
 * origin's keys and its page's outcomes, and the line is a fifth shorter to write and parse
 * (bench/RESULTS.md, issue 30).
 */
type Line = [string[], Row[]];

function lineOf(page: readonly ListedItem[]): Line {
  const texts: string[] = [];
  const indexes = new Map<string, number>();
  const index = (text: string) => {
    let at = indexes.get(text);
    if (at === undefined) {
      at = texts.push(text) - 1;
      indexes.set(text, at);
    }
    return at;
  };
  const origin = (url: string) => {
    const text = urlOrigin(url);
    return text === undefined ? -1 : index(text);
  };
  const rows = page.map(({ host, item }): Row => [
    index(host),
    item.id,
    item.url,
    origin(item.url),
    index(item.status),
    index(item.firstPageUrl),
    item.lastSeenAt,
    item.jsIntegrityScore ?? (item.reports as string[] | undefined) ?? null,
  ]);
  return [texts, rows];
}

/**
 * The items of a line at most. A page of 1,000 scripts as one line is about 135 KB: its text, the
 * bytes written and those read back were each allocated anew outside what the process reuses,
 * where a line of 250 (about 34 KB) is allocated where it is (`../client/json-body.ts` says why
 * that matters on the benchmarks' machine).
 */
export const LINE_ITEMS = 250;

function pageOf([texts, rows]: Line): ListedItem[] {
  return rows.map(([host, id, url, origin, status, firstPage, lastSeenAt, extra]) => {
    const item: Detected = { id, url, status: texts[status]!, firstPageUrl: texts[firstPage]!, lastSeenAt };
    if (origin >= 0) item.origin = texts[origin]!;
    if (typeof extra === 'number') item.jsIntegrityScore = extra;
    else if (Array.isArray(extra)) item.reports = extra;
    return { host: texts[host]!, item };
  });
}

/**
 * A listing's file as the read ahead's child process writes it (`./read-ahead-child.ts`), through a
 * descriptor it was given: a line per {@link LINE_ITEMS} items. Where each page's lines are, the
 * process that reads them back is told as each page is written ({@link FileListing.written}).
 */
export class ListingWriter {
  private size = 0;

  constructor(private readonly fd: number) {}

  /**
   * Keeps a page, as its lines, and says where they are and their lengths (their newlines left
   * out), two numbers a line; what cannot be written (a full disk) is thrown.
   */
  append(page: readonly ListedItem[]): number[] {
    const lines: number[] = [];
    for (let first = 0; first < page.length; first += LINE_ITEMS) {
      const line = `${JSON.stringify(lineOf(page.slice(first, first + LINE_ITEMS)))}\n`;
      const written = fs.writeSync(this.fd, line, this.size, 'utf8');
      lines.push(this.size, written - 1);
      this.size += written;
    }
    return lines;
  }
}

/**
 * A listing kept in a file, read back a line at a time as its writer says where the lines are
 * ({@link written}); one its writer left unfinished is read on from the next page with
 * {@link continueWith}. The file is removed from its folder as soon as it is open, and read and
 * written through its descriptor: the engine ends the pack with a kill, so nothing it would clean
 * up on its way out stays on disk.
 */
export class FileListing implements ReadListing {
  count = 0;
  requests = 0;
  /** The pages its writer has written. */
  pagesWritten = 0;
  complete = false;
  private readonly lines: number[] = [];
  private rest: AsyncIterable<ListedItem[]> | undefined;
  private fd: number | undefined;
  /** Where a line is read back, kept for the next. */
  private buffer = Buffer.alloc(0);

  constructor(file: string) {
    this.fd = fs.openSync(file, 'w+', 0o600);
    fs.rmSync(file, { force: true });
  }

  /** The descriptor its writer is given; `undefined` once closed. */
  get descriptor(): number | undefined {
    return this.fd;
  }

  /** Its writer has written a page of `items` items, in `lines` ({@link ListingWriter.append}). */
  written(items: number, lines: readonly number[]): void {
    this.count += items;
    this.pagesWritten += 1;
    for (const at of lines) this.lines.push(at);
  }

  /** What follows the pages written, for a listing its writer did not read to its end. */
  continueWith(rest: AsyncIterable<ListedItem[]>): void {
    this.rest = rest;
  }

  /** The items its writer has written, a line at a time. */
  *kept(): Iterable<ListedItem[]> {
    for (let line = 0; line < this.lines.length; line += 2) {
      if (this.fd === undefined) return;
      const at = this.lines[line]!;
      const length = this.lines[line + 1]!;
      if (this.buffer.length < length) this.buffer = Buffer.allocUnsafe(Math.max(length, 2 * this.buffer.length));
      fs.readSync(this.fd, this.buffer, 0, length, at);
      yield pageOf(JSON.parse(this.buffer.toString('utf8', 0, length)) as Line);
    }
  }

  async *pages(): AsyncIterable<ListedItem[]> {
    yield* this.kept();
    if (this.rest === undefined) return;
    for await (const page of this.rest) {
      this.count += page.length;
      yield page;
    }
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
