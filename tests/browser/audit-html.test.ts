/**
 * edgeguard-audit's HTML page (provider/format/audit-html.ts) in a real browser: headless Chromium
 * opens the page of a fixed evidence (tests/helpers/audit-evidence.ts, hostile values included)
 * and shows it as a reader and a printer get it: its title, one row per script, no console error,
 * no request at all, the hostile values as text; in print media on A4, no table wider than the
 * sheet, and a PDF of at least a sheet per payment page. The screenshot and the PDF are kept under
 * .edgeguard/test-output/ and their paths printed.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { auditHtml } from '../../provider/format/audit-html';
import { FAILING, HOSTILE_JUSTIFICATION, HOSTILE_URL } from '../helpers/audit-evidence';
import { REPO } from '../helpers/repo';
import type { AuditPageReport, AuditPageRequest } from './audit-html-run';
import { BROWSER_EXECUTABLES } from './browsers';

jest.setTimeout(120_000);

const RUN_SCRIPT = path.join(REPO, 'dist', 'tests', 'browser', 'audit-html-run.js');
const OUTPUT = path.join(REPO, '.edgeguard', 'test-output');
/** A4's 210 mm less the page's 12 mm margins each side (as-html.ts's @page), at 96 px to the inch. */
const PRINT_WIDTH = Math.floor(((210 - 2 * 12) / 25.4) * 96);

let report: AuditPageReport;
let request: AuditPageRequest;

beforeAll(() => {
  if (!existsSync(BROWSER_EXECUTABLES.chromium))
    throw new Error(
      `${BROWSER_EXECUTABLES.chromium} is missing: install it with \`bash scripts/setup-browsers.sh\` (as root: apt-get install chromium)`,
    );
  if (!existsSync(RUN_SCRIPT)) throw new Error(`${RUN_SCRIPT} is missing: build first (npm run build)`);
  mkdirSync(OUTPUT, { recursive: true });
  request = {
    html: path.join(OUTPUT, 'audit.html'),
    screenshot: path.join(OUTPUT, 'audit.png'),
    pdf: path.join(OUTPUT, 'audit.pdf'),
    printWidth: PRINT_WIDTH,
  };
  writeFileSync(request.html, auditHtml(FAILING));
  const child = spawnSync(process.execPath, [RUN_SCRIPT], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    timeout: 100_000,
  });
  if (child.status !== 0)
    throw new Error(`${RUN_SCRIPT} failed (${child.error?.message ?? `exit ${child.status}`}): ${child.stderr}`);
  report = JSON.parse(child.stdout) as AuditPageReport;
  console.log(
    `edgeguard-audit's HTML in ${report.browser}: screenshot ${request.screenshot}, printed ${request.pdf} (${report.pdfPages} A4 pages)`,
  );
});

test('it renders: its title, one row per script of each payment page, no console error, no request', () => {
  expect(report.title).toBe('Payment-page scripts of shop / prod: EdgeGuard audit');
  const expected = FAILING.inventories.flatMap((inventory) =>
    inventory.pages.map((page) => page.scripts.map((script) => script.url)),
  );
  expect(report.rows.map((rows) => rows.map((row) => row.split(' (')[0]))).toEqual(expected);
  // A style the page's own policy refused, or anything it tried to load, would show here.
  expect(report.errors).toEqual([]);
  expect(report.requests).toEqual([]);
  expect(statSync(request.screenshot).size).toBeGreaterThan(10_000);
});

test('values from the service are text: no script element, the hostile ones shown as written', () => {
  expect(report.scriptElements).toBe(0);
  expect(report.text).toContain(HOSTILE_URL);
  expect(report.text).toContain(HOSTILE_JUSTIFICATION);
});

test('it prints on A4: no table wider than the sheet, no cell overflowing, a new sheet per payment page', () => {
  expect(report.print.documentWidth).toBeLessThanOrEqual(PRINT_WIDTH);
  expect(report.print.widestTable).toBeLessThanOrEqual(PRINT_WIDTH);
  expect(report.print.overflowingCells).toEqual([]);
  const paymentPages = FAILING.inventories.flatMap((inventory) => inventory.pages).length;
  // The summary's sheet, then each payment page from a sheet of its own.
  expect(report.pdfPages).toBeGreaterThanOrEqual(1 + paymentPages);
});
