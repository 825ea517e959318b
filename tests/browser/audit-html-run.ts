/**
 * Opens an edgeguard-audit HTML page in headless Chromium and reports what a reader and a printer
 * get. Run as a script (`node dist/tests/browser/audit-html-run.js`), it reads an
 * {@link AuditPageRequest} as JSON on stdin and writes an {@link AuditPageReport} as JSON on
 * stdout: tests/browser/audit-html.test.ts runs it so, since jest cannot load puppeteer-core.
 */

import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { launchBrowser } from './launch';

/** What to open and where to put the pictures of it. */
export interface AuditPageRequest {
  /** The HTML file. */
  html: string;
  /** Where to save a full-page screenshot (PNG). */
  screenshot: string;
  /** Where to save the page printed on A4 (PDF). */
  pdf: string;
  /** The width of an A4 sheet's printable area at 96 px to the inch, its margins taken off. */
  printWidth: number;
}

/** What Chromium made of the page. */
export interface AuditPageReport {
  browser: string;
  title: string;
  /** Requests other than the page itself. */
  requests: string[];
  /** Console messages of level error, and errors thrown in the page. */
  errors: string[];
  /** `<script>` elements in the document. */
  scriptElements: number;
  /** The text of each script row's first cell, per payment page section. */
  rows: string[][];
  /** The page's visible text. */
  text: string;
  /** In print media at {@link AuditPageRequest.printWidth}: the document's width, and each table's and cell's overflow. */
  print: { documentWidth: number; widestTable: number; overflowingCells: string[] };
  /** Sheets in the PDF. */
  pdfPages: number;
}

/**
 * The little of the DOM the page functions below use, declared as ./observe.ts does: the project
 * compiles without the DOM's types, and these functions only ever run in the page.
 */
interface PageElement {
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  getBoundingClientRect(): { right: number };
}
declare const document: PageElement & {
  title: string;
  body: PageElement & { innerText: string };
  documentElement: PageElement;
};

/** Sheets of a PDF as Chromium writes it: one `/Type /Page` object each (the tree's nodes are `/Pages`). */
function pageCount(pdf: Uint8Array): number {
  return (
    Buffer.from(pdf)
      .toString('latin1')
      .match(/\/Type\s*\/Page\b/g) ?? []
  ).length;
}

async function open(request: AuditPageRequest): Promise<AuditPageReport> {
  const launched = await launchBrowser('chromium');
  try {
    const page = await launched.browser.newPage();
    const url = pathToFileURL(request.html).href;
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (sent) => {
      if (sent.url() !== url) requests.push(sent.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(url, { waitUntil: 'load' });
    const seen = await page.evaluate(() => ({
      title: document.title,
      scriptElements: [...document.querySelectorAll('script')].length,
      rows: [...document.querySelectorAll('section.payment-page')].map((section) =>
        [...section.querySelectorAll('tr.script')].map((row) => row.querySelector('td')?.textContent ?? ''),
      ),
      text: document.body.innerText,
    }));
    await page.screenshot({ path: request.screenshot, fullPage: true });

    await page.emulateMediaType('print');
    await page.setViewport({ width: request.printWidth, height: 1123 });
    const print = await page.evaluate(() => {
      const cells = [...document.querySelectorAll('td, th')].filter((cell) => cell.scrollWidth > cell.clientWidth + 1);
      return {
        documentWidth: document.documentElement.scrollWidth,
        widestTable: Math.max(
          ...[...document.querySelectorAll('table')].map((table) => table.getBoundingClientRect().right),
        ),
        overflowingCells: cells.map((cell) => (cell.textContent ?? '').slice(0, 80)),
      };
    });
    const pdf = await page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true });
    writeFileSync(request.pdf, pdf);
    return { browser: launched.version, ...seen, requests, errors, print, pdfPages: pageCount(pdf) };
  } finally {
    await launched.close();
  }
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  process.stdout.write(JSON.stringify(await open(JSON.parse(input) as AuditPageRequest)));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
