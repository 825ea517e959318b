import type { Phrase, Span } from '../impact/statements';
import type { ProbeAlert, ProbePage, ProbeReport, ProbeScript } from '../payment/probe-schema';
import { cell, md } from './audit-markdown';
import { markdownCode, markdownText, shown } from './escape';

/**
 * `edgeguard-probe`'s report (issue 33) in words: each alert as a phrase, the report as Markdown
 * (`--markdown`, and stdout by default) and its summary as text for stderr. Every value that comes
 * from a page or the stack (a URL, a header's value, a violation) is a value span: code in
 * Markdown, with control characters shown escaped on a terminal, so it renders and runs nothing.
 */

const v = (text: string): Span => ({ value: text });
const stress = (text: string): Span => ({ stress: text });

/** An alert in words: what was expected, what the browser received. */
export function alertPhrase(alert: ProbeAlert): Phrase {
  switch (alert.kind) {
    case 'page-unavailable':
      return [stress('page did not load'), ': ', v(alert.reason)];
    case 'script-unauthorized':
      return [
        stress('unauthorized script'),
        ': ',
        v(alert.url),
        ' ran and no entry of the inventory authorizes it',
        ...(alert.sha256 !== undefined ? [' (SHA-256 ', v(alert.sha256), ')'] : []),
      ];
    case 'script-changed': {
      const service: Record<typeof alert.pageSecurityAgrees, Phrase> = {
        'with-pin': ['page security still reports the pinned version: ', stress('the body differs for browsers only')],
        'with-browser': ['page security reports the same hash'],
        'with-neither': ['page security reports ', v(alert.pageSecurity ?? ''), ', a third version'],
        unreported: ['page security has not reported the script'],
      };
      return [
        stress('pinned script changed'),
        ': ',
        v(alert.url),
        ` (scripts[${alert.entryIndex}]) pinned `,
        v(alert.pinned),
        ', received ',
        ...(alert.received !== undefined ? [v(alert.received)] : ['a body that could not be read']),
        '; ',
        ...service[alert.pageSecurityAgrees],
      ];
    }
    case 'script-unreported':
      return [
        stress('script not reported by page security'),
        ': ',
        v(alert.url),
        ' ran on the page, where page security has not reported it yet',
      ];
    case 'header-changed': {
      const by: Phrase =
        alert.pinnedBy === 'inventory'
          ? ["the inventory's headers"]
          : alert.managedBy.length > 0
            ? [
                "the stack's CspPolicy ",
                ...alert.managedBy.flatMap((manager, index) => [...(index > 0 ? [', '] : []), v(manager.name)]),
              ]
            : ['the stack, which declares no such header for the host'];
      const expected: Phrase = alert.expected === null ? ['none'] : [v(alert.expected)];
      const received: Phrase = alert.received === null ? ['none'] : [v(alert.received)];
      const what =
        alert.received === null ? 'header missing' : alert.expected === null ? 'header added' : 'header changed';
      return [stress(what), ': ', v(alert.header), ' expected ', ...expected, ' (', ...by, '), received ', ...received];
    }
  }
}

function phraseText(phrase: Phrase): string {
  return shown(
    phrase
      .map((span) =>
        typeof span === 'string' ? span : 'stress' in span ? span.stress : 'value' in span ? span.value : span.name,
      )
      .join(''),
  );
}

function scriptRow(script: ProbeScript): string {
  const cells: Phrase[] = [
    [v(script.url)],
    script.sha256 !== undefined ? [v(script.sha256)] : [script.error ?? 'not read'],
    script.entry !== undefined ? [v(script.entry)] : ['none'],
    [script.integrity],
    script.pageSecurity.reported
      ? ['reported', ...(script.pageSecurity.hash !== undefined ? [', ', v(script.pageSecurity.hash)] : [])]
      : [stress('not reported')],
  ];
  return `| ${cells.map((phrase) => cell(phrase)).join(' | ')} |`;
}

function pageMarkdown(page: ProbePage): string[] {
  const lines = [`### ${markdownCode(page.page)}`, ''];
  lines.push(
    page.loaded
      ? `Loaded ${markdownCode(page.finalUrl ?? page.url)} (HTTP ${page.status ?? ''}).`
      : `Did not load ${markdownCode(page.url)}${page.status !== undefined ? ` (HTTP ${page.status})` : ''}.`,
    '',
  );
  if (page.alerts.length > 0)
    lines.push('**Alerts**', '', ...page.alerts.map((alert) => `- ${md(alertPhrase(alert))}`), '');
  if (!page.loaded) return lines;
  const headers = Object.entries(page.headers);
  lines.push('**Security headers received**', '');
  if (headers.length === 0) lines.push('None.', '');
  else
    lines.push(
      '| header | value |',
      '| --- | --- |',
      ...headers.map(([name, value]) => `| ${cell([v(name)])} | ${cell([v(value)])} |`),
      '',
    );
  lines.push('**Scripts run**', '');
  if (page.scripts.length === 0) lines.push('None from a URL.', '');
  else
    lines.push(
      '| script | SHA-256 received | entry | integrity | page security |',
      '| --- | --- | --- | --- | --- |',
      ...page.scripts.map(scriptRow),
      '',
    );
  lines.push('**CSP violations reported**', '');
  if (page.violations.length === 0) lines.push('None.', '');
  else
    lines.push(
      ...page.violations.map(
        (violation) =>
          `- ${md([v(violation.directive), violation.disposition === 'enforce' ? ' blocked ' : ' reported (report-only) ', v(violation.blockedUrl)])}`,
      ),
      '',
    );
  return lines;
}

/** The staging options of a probe in words, or `undefined` for a shopper's load. */
export function stagingText(report: Pick<ProbeReport, 'staging'>): string | undefined {
  const parts = [
    ...(report.staging.resolve.length > 0
      ? [`--resolve ${report.staging.resolve.join(' ')} (these hosts were not looked up in DNS)`]
      : []),
    ...(report.staging.insecure ? ['--insecure (certificates were not checked)'] : []),
  ];
  return parts.length > 0 ? `staging options in use: ${parts.join('; ')}` : undefined;
}

function verdictText(report: ProbeReport): string {
  const { counts } = report;
  return report.passed
    ? `every page loaded, every script it ran is authorized and as pinned and reported by page security, every header as the stack and the inventory say (${counts.pages} pages, ${counts.scripts} scripts)`
    : `${counts.alerts} alert${counts.alerts === 1 ? '' : 's'} on ${counts.pages} page${counts.pages === 1 ? '' : 's'} (${counts.loaded} loaded, ${counts.scripts} scripts run)`;
}

/** The report as Markdown. */
export function probeMarkdown(report: ProbeReport): string {
  const staging = stagingText(report);
  const lines = [
    `# Payment pages as the browser received them: ${markdownText(report.project)} / ${markdownText(report.stack)}`,
    '',
    `Loaded at ${markdownText(report.evaluatedAt)} by ${markdownText(report.browser)} (${report.tool.name} ${markdownText(report.tool.version)}), PCI DSS 4.0 requirement 11.6.1.`,
    '',
    ...(staging !== undefined ? [`> ${markdownText(staging)}: not a shopper's load.`, ''] : []),
    `${report.passed ? '**Pass**' : '**Alert**'}: ${markdownText(verdictText(report))}.`,
    '',
  ];
  for (const inventory of report.inventories) {
    lines.push(`## Inventory ${markdownCode(inventory.name)} (zone ${markdownCode(inventory.zoneId)})`, '');
    for (const page of inventory.pages) lines.push(...pageMarkdown(page));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The command's summary on stderr: the verdict, then each alert on a line with its page. */
export function probeSummaryText(report: ProbeReport): string {
  const alerts = report.inventories.flatMap((inventory) =>
    inventory.pages.flatMap((page) =>
      page.alerts.map(
        (alert) => `  ${shown(page.page)} (inventory ${shown(inventory.name)}): ${phraseText(alertPhrase(alert))}`,
      ),
    ),
  );
  return [`${report.passed ? 'pass' : 'alert'}: ${verdictText(report)}${alerts.length > 0 ? ':' : ''}`, ...alerts].join(
    '\n',
  );
}
