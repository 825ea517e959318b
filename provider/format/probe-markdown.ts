import type { Phrase, Span } from '../impact/statements';
import type { ProbeAlert, ProbeNotice, ProbePage, ProbeReport, ProbeScript } from '../payment/probe-schema';
import { cell, md } from './audit-markdown';
import { markdownCode, markdownText, shown } from './escape';

/**
 * `edgeguard-probe`'s report (issues 33 and 41) in words: each alert and notice as a phrase with
 * the loads that saw it, the report as Markdown (`--markdown`, and stdout by default) and its
 * summary as lines for stderr. Every value that comes
 * from a page or the stack (a URL, a header's value, a violation) is a value span: code in
 * Markdown, with control characters shown escaped on a terminal, so it renders and runs nothing.
 */

const v = (text: string): Span => ({ value: text });
const stress = (text: string): Span => ({ stress: text });

/** The loads that saw something, in words: `desktop load 1, phone load 2`. */
function seenText(seenOn: ProbeAlert['seenOn']): string {
  return seenOn.map((seen) => `${seen.device} load ${seen.load}`).join(', ');
}

/** A script in words: its URL, or what kind of inline or eval code it is and its hash source. */
function scriptNamed(script: {
  script?: string;
  kind?: string;
  url?: string;
  hashSource?: string;
  sha256?: string;
}): Phrase {
  const kind = script.script ?? script.kind;
  if (kind === 'external') return [v(script.url ?? '')];
  const what = kind === 'inline' ? 'inline script' : 'eval code';
  return [
    `${what} `,
    ...(script.hashSource !== undefined ? [v(script.hashSource)] : ['(its text could not be read)']),
    ...(kind === 'inline' && script.url !== undefined ? [' in ', v(script.url)] : []),
    ...(kind === 'eval' && script.url !== undefined ? [' named ', v(script.url)] : []),
  ];
}

/** An alert in words: what was expected, what the browser received. */
export function alertPhrase(alert: ProbeAlert): Phrase {
  switch (alert.kind) {
    case 'page-unavailable':
      return [stress('page did not load'), ': ', v(alert.reason)];
    case 'script-unauthorized':
      return [
        stress('unauthorized script'),
        ': ',
        ...scriptNamed(alert),
        ' ran',
        ...(alert.context !== 'page' ? [` in a ${alert.context} `, v(alert.frame)] : []),
        ' and no entry of the inventory authorizes it',
        ...(alert.script === 'external' && alert.sha256 !== undefined ? [' (SHA-256 ', v(alert.sha256), ')'] : []),
        ...(alert.changesEveryLoad === true
          ? [
              '; ',
              stress('its text differs at every load'),
              ': it cannot be pinned; move what changes into a JSON data block',
            ]
          : []),
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
    case 'frame-unauthorized':
      return [
        stress('unauthorized frame'),
        ': ',
        v(alert.url),
        ' (host ',
        v(alert.host),
        ") is on the page and no entry of the inventory's frames authorizes it",
      ];
    case 'card-sent':
      return [
        stress('card number sent'),
        ': to ',
        v(alert.url),
        ' (host ',
        v(alert.host),
        `, ${alert.via}, ${alert.encoding}), outside the inventory's cardDestinations`,
      ];
    case 'page-redirected':
      return [
        stress('page redirected'),
        ': the page ended on ',
        v(alert.finalUrl),
        ' (host ',
        v(alert.host),
        "), none of the inventory's pages",
      ];
    case 'service-worker-unauthorized':
      return [
        stress('unauthorized service worker'),
        ': ',
        v(alert.url),
        ' was registered and no entry of the inventory authorizes it',
        ...(alert.sha256 !== undefined ? [' (SHA-256 ', v(alert.sha256), ')'] : []),
      ];
    case 'script-blocked':
      return [
        stress('script blocked by the enforced CSP'),
        ': ',
        v(alert.directive),
        ' blocked ',
        v(alert.blockedUrl),
        ' (an injection stopped, or a page the policy breaks)',
      ];
  }
}

/** A notice in words. */
export function noticePhrase(notice: ProbeNotice): Phrase {
  return [
    stress('script not reported by page security'),
    ': ',
    v(notice.url),
    ' ran on the page, where page security has not reported it yet',
  ];
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
    [script.kind],
    scriptNamed(script),
    script.sha256 !== undefined ? [v(script.sha256)] : [script.error ?? 'not read'],
    [v(script.frame), ...(script.context !== 'page' ? [` (${script.context})`] : [])],
    script.underFrame !== undefined
      ? ['its frame’s provider (', v(script.underFrame), '), not judged']
      : script.entry !== undefined
        ? [v(script.entry)]
        : ['none'],
    [script.integrity ?? 'not judged'],
    script.pageSecurity === undefined
      ? ['']
      : script.pageSecurity.reported
        ? ['reported', ...(script.pageSecurity.hash !== undefined ? [', ', v(script.pageSecurity.hash)] : [])]
        : [stress('not reported')],
    [seenText(script.seenOn)],
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
  const said: Array<[string, Array<{ phrase: Phrase; seenOn: ProbeAlert['seenOn'] }>]> = [
    ['Alerts', page.alerts.map((alert) => ({ phrase: alertPhrase(alert), seenOn: alert.seenOn }))],
    ['Notices', page.notices.map((notice) => ({ phrase: noticePhrase(notice), seenOn: notice.seenOn }))],
  ];
  for (const [title, items] of said)
    if (items.length > 0)
      lines.push(`**${title}**`, '', ...items.map((item) => `- ${md(item.phrase)} (${seenText(item.seenOn)})`), '');
  lines.push(
    '**Loads**',
    '',
    '| device | load | status | final URL | scripts | card fields typed | requests after the card |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...page.loads.map(
      (load) =>
        `| ${load.device} | ${load.load} | ${load.status ?? (load.loaded ? '' : 'did not load')} | ${load.finalUrl !== undefined ? cell([v(load.finalUrl)]) : ''} | ${load.scripts} | ${load.cardFields} | ${load.requestsAfterCard} |`,
    ),
    '',
  );
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
  if (page.scripts.length === 0) lines.push('None.', '');
  else
    lines.push(
      '| kind | script | SHA-256 | ran in | entry | integrity | page security | seen on |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...page.scripts.map(scriptRow),
      '',
    );
  for (const [title, list] of [
    ['Frames', page.frames],
    ['Service workers', page.serviceWorkers],
  ] as const) {
    if (list.length === 0) continue;
    lines.push(
      `**${title}**`,
      '',
      ...list.map(
        (item) =>
          `- ${md([v(item.url), ', ', ...(item.entry !== undefined ? ['authorized by ', v(item.entry)] : ['authorized by no entry'])])} (${seenText(item.seenOn)})`,
      ),
      '',
    );
  }
  lines.push('**CSP violations reported**', '');
  if (page.violations.length === 0) lines.push('None.', '');
  else
    lines.push(
      ...page.violations.map(
        (violation) =>
          `- ${md([v(violation.directive), violation.disposition === 'enforce' ? ' blocked ' : ' reported (report-only) ', v(violation.blockedUrl)])} (${seenText(violation.seenOn)})`,
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
  const notices =
    counts.notices > 0
      ? `, ${counts.notices} notice${counts.notices === 1 ? '' : 's'}${report.settings.strict ? ' (--strict: they fail the run)' : ''}`
      : '';
  return report.passed
    ? `every page loaded, every script it ran is authorized and as pinned, no frame, service worker or card request the inventory does not allow, every header as the stack and the inventory say (${counts.pages} pages, ${counts.loads} loads, ${counts.scripts} scripts${notices})`
    : `${counts.alerts} alert${counts.alerts === 1 ? '' : 's'} on ${counts.pages} page${counts.pages === 1 ? '' : 's'} (${counts.loaded} of ${counts.loads} loads loaded, ${counts.scripts} scripts run${notices})`;
}

/** The report as Markdown. */
export function probeMarkdown(report: ProbeReport): string {
  const staging = stagingText(report);
  const { settings } = report;
  const lines = [
    `# Payment pages as the browser ran them: ${markdownText(report.project)} / ${markdownText(report.stack)}`,
    '',
    `Loaded at ${markdownText(report.evaluatedAt)} by ${markdownText(report.browser)} (${report.tool.name} ${markdownText(report.tool.version)}), PCI DSS 4.0 requirement 11.6.1: each page ${settings.loads} time${settings.loads === 1 ? '' : 's'} as ${settings.devices.join(' and as ')}, each load in a fresh context, recorded ${settings.settleSeconds} s after the load event and after the test card (ending ${markdownText(settings.cardLast4)}) was typed${settings.submit ? ', and its form submitted' : ''}.`,
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

/**
 * The command's summary on stderr, line by line: the verdict, then each alert (and notice) on a
 * line of its own with its page and the loads that saw it.
 */
export function probeSummaryLines(report: ProbeReport): string[] {
  const lines = report.inventories.flatMap((inventory) =>
    inventory.pages.flatMap((page) => [
      ...page.alerts.map(
        (alert) =>
          `  ${shown(page.page)} (inventory ${shown(inventory.name)}): ${phraseText(alertPhrase(alert))} [${seenText(alert.seenOn)}]`,
      ),
      ...page.notices.map(
        (notice) =>
          `  ${shown(page.page)} (inventory ${shown(inventory.name)}): notice: ${phraseText(noticePhrase(notice))} [${seenText(notice.seenOn)}]`,
      ),
    ]),
  );
  return [`${report.passed ? 'pass' : 'alert'}: ${verdictText(report)}${lines.length > 0 ? ':' : ''}`, ...lines];
}
