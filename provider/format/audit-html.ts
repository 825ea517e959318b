import { createHash } from 'node:crypto';
import type { Phrase, Span } from '../impact/statements';
import { isMaliciousPaymentScript } from '../payment/statements';
import type { AuditEvidence, AuditInventory, AuditPaymentPage, AuditScript } from '../payment/evidence-schema';
import {
  aboutPhrase,
  authorizedByPhrase,
  COUNTED,
  countsText,
  entryPhrase,
  headersTitle,
  integrityPhrase,
  INTEGRITY_WORDS,
  inventoryHeading,
  MALICIOUS_COUNTED,
  managerPhrase,
  modeText,
  pageHeading,
  scoresPhrase,
  scriptPhrase,
  scriptsTitle,
  seenPhrase,
  STALE_TITLE,
  titleOf,
  verdictPhrase,
  versionPhrase,
  versionsTitle,
} from './audit-wording';
import { htmlText } from './escape';
import { HEADER_CHANGES_TITLE, headerChangePhrase } from '../payment/header-change-statements';

/**
 * The audit's evidence as one self-contained HTML page (`edgeguard-audit --html`), for the
 * assessor: inline CSS, no script, nothing loaded from anywhere (its own Content-Security-Policy
 * says so to the browser), printable on A4 with each payment page starting a new sheet and tables
 * that wrap long URLs and hashes rather than overflow. Every value from the service or the stack
 * passes through `htmlText` (`./escape.ts`): the markup is built by the {@link html} template, which escapes
 * what it is given unless it is markup built the same way.
 */

/** Markup: text already escaped, or built from escaped parts. */
class Markup {
  constructor(readonly text: string) {}
}

type Part = string | number | Markup | readonly Markup[];

/** A template whose every interpolation is escaped, except markup (or a list of markup) built by it. */
function html(strings: TemplateStringsArray, ...parts: Part[]): Markup {
  let out = strings[0]!;
  parts.forEach((part, index) => {
    if (typeof part === 'string' || typeof part === 'number') out += htmlText(String(part));
    else if (part instanceof Markup) out += part.text;
    else out += part.map((markup) => markup.text).join('');
    out += strings[index + 1]!;
  });
  return new Markup(out);
}

function span(part: Span): Markup {
  if (typeof part === 'string') return html`${part}`;
  if ('value' in part) return html`<code>${part.value}</code>`;
  if ('name' in part) return html`<code class="name">${part.name}</code>`;
  return html`<strong>${part.stress}</strong>`;
}

function phrase(words: Phrase): Markup {
  return html`${words.map(span)}`;
}

const CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font: 10.5pt/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif; color: #111;
  margin: 0 auto; max-width: 60rem; padding: 1.5rem; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; border-bottom: 2px solid #333; }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
p { margin: .4rem 0; }
code { font: .9em/1.3 ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; overflow-wrap: anywhere;
  word-break: break-all; }
code.name { word-break: normal; }
table { width: 100%; table-layout: fixed; border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #999; padding: .25rem .4rem; text-align: left; vertical-align: top;
  overflow-wrap: anywhere; }
th { background: #eee; }
ul { margin: .25rem 0 .75rem; padding-left: 1.25rem; }
.verdict { padding: .5rem .75rem; border: 2px solid; margin: .75rem 0; }
.pass { border-color: #1a7f37; background: #e6f4ea; }
.fail { border-color: #b3261e; background: #fce8e6; }
tr.changed td, tr.unauthorized td, tr.malicious td { background: #fce8e6; }
.counts { width: auto; min-width: 40%; }
col.script { width: 24%; } col.seen { width: 15%; } col.entry { width: 21%; } col.integrity { width: 27%; }
col.scores { width: 13%; }
col.policy { width: 24%; } col.mode { width: 14%; } col.manager { width: 16%; } col.value { width: 46%; }
@page { size: A4; margin: 12mm; }
@media print {
  body { font-size: 8.5pt; max-width: none; padding: 0; }
  section.payment-page { break-before: page; }
  h2, h3 { break-after: avoid; }
  tr { break-inside: avoid; }
  thead { display: table-header-group; }
  .verdict, tr.changed td, tr.unauthorized td, tr.malicious td, th { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
`;

/**
 * The style element, made here rather than in a template: its text must be exactly the text the
 * page's policy hashes, and a formatter re-indents what templates hold.
 */
const STYLE = new Markup(`<style>${CSS}</style>`);

/** The page's own policy: no script, no load of any kind, its one style block alone (by hash). */
const PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'; base-uri 'none'; form-action 'none'`;

function headersTable(page: AuditPaymentPage): Markup {
  if (page.headers.length === 0) return html``;
  return html`<table class="headers">
    <colgroup>
      <col class="policy" />
      <col class="mode" />
      <col class="manager" />
      <col class="value" />
    </colgroup>
    <thead>
      <tr>
        <th>Policy</th>
        <th>Mode</th>
        <th>Managed by</th>
        <th>Value</th>
      </tr>
    </thead>
    <tbody>
      ${page.headers.map(
        (header) =>
          html`<tr class="${header.mode}">
            <td>
              <code>${header.policyId}</code>${header.description !== '' ? html`<br />${header.description}` : html``}
            </td>
            <td>${modeText(header)}</td>
            <td>${phrase(managerPhrase(header))}</td>
            <td><code>${header.value}</code></td>
          </tr> `,
      )}
    </tbody>
  </table>`;
}

function scriptRow(script: AuditScript): Markup {
  const versions =
    script.versionsSince.length === 0
      ? html``
      : html`<p>${phrase(versionsTitle(script))}:</p>
          <ul>
            ${script.versionsSince.map((version, index) => html`<li>${phrase(versionPhrase(version, index))}</li>`)}
          </ul>`;
  // A malicious script's row is marked as failing whatever its integrity.
  const classes = `script ${script.integrity}${isMaliciousPaymentScript(script) ? ' malicious' : ''}`;
  return html`<tr class="${classes}">
    <td>${phrase(scriptPhrase(script))}</td>
    <td>${phrase(seenPhrase(script))}</td>
    <td>${phrase(authorizedByPhrase(script))}</td>
    <td>${phrase(integrityPhrase(script))}${versions}</td>
    <td>${phrase(scoresPhrase(script))}</td>
  </tr> `;
}

function scriptsTable(page: AuditPaymentPage): Markup {
  if (page.scripts.length === 0) return html``;
  return html`<table class="scripts">
    <colgroup>
      <col class="script" />
      <col class="seen" />
      <col class="entry" />
      <col class="integrity" />
      <col class="scores" />
    </colgroup>
    <thead>
      <tr>
        <th>Script</th>
        <th>Seen</th>
        <th>Authorized by</th>
        <th>Integrity</th>
        <th>Scores</th>
      </tr>
    </thead>
    <tbody>
      ${page.scripts.map(scriptRow)}
    </tbody>
  </table>`;
}

function pageSection(page: AuditPaymentPage): Markup {
  return html`<section class="payment-page">
    <h3>${phrase(pageHeading(page))}</h3>
    <p>${phrase(headersTitle(page))}</p>
    ${headersTable(page)}
    <p>${scriptsTitle(page)}</p>
    ${scriptsTable(page)}
  </section> `;
}

function inventorySection(inventory: AuditInventory): Markup {
  const changes = inventory.headerChanges ?? [];
  const changed =
    changes.length === 0
      ? html``
      : html`<h3>${phrase(HEADER_CHANGES_TITLE)}</h3>
          <ul>
            ${changes.map((change) => html`<li>${phrase(headerChangePhrase(change))}</li>`)}
          </ul> `;
  const stale =
    inventory.staleEntries.length === 0
      ? html``
      : html`<h3>${phrase(STALE_TITLE)}</h3>
          <ul>
            ${inventory.staleEntries.map((entry) => html`<li>${phrase(entryPhrase(entry))}</li>`)}
          </ul> `;
  return html`<section class="inventory">
    <h2>${phrase(inventoryHeading(inventory))}</h2>
    <p>${countsText(inventory.counts)}.</p>
    ${inventory.pages.map(pageSection)}${changed}${stale}
  </section> `;
}

/** The whole evidence as one HTML document. */
export function auditHtml(evidence: AuditEvidence): string {
  const counts = [
    ...COUNTED.map(
      (integrity) =>
        html`<tr>
          <td>${INTEGRITY_WORDS[integrity]}</td>
          <td>${evidence.counts[integrity]}</td>
        </tr>`,
    ),
    html`<tr>
      <th>total</th>
      <th>${evidence.counts.scripts}</th>
    </tr>`,
    html`<tr>
      <td>${MALICIOUS_COUNTED}</td>
      <td>${evidence.counts.malicious}</td>
    </tr>`,
  ];
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="Content-Security-Policy" content="${PAGE_CSP}" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${titleOf(evidence)}</title>
        ${STYLE}
      </head>
      <body>
        <header>
          <h1>${titleOf(evidence)}</h1>
          <p>${phrase(aboutPhrase(evidence))}</p>
          <p class="verdict ${evidence.passed ? 'pass' : 'fail'}">${phrase(verdictPhrase(evidence))}</p>
          <table class="counts">
            <thead>
              <tr>
                <th>Integrity</th>
                <th>Scripts</th>
              </tr>
            </thead>
            <tbody>
              ${counts}
            </tbody>
          </table>
        </header>
        ${evidence.inventories.map(inventorySection)}
      </body>
    </html> `.text;
}
