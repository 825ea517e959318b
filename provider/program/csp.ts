import {
  formatCspSource,
  normalizeCspValue,
  parseCspValue,
  type CspDirectiveName,
  type CspSource,
} from '../../rules/csp';
import { cspAllowsUrl, type CspFetchKind } from '../../rules/csp-match';
import { comment, constant, newResource } from './code';
import { uniqueNames } from './names';
import { maliciousBecause, type Detected } from '../impact/evaluate';
import { cspWeaknesses, type CspWeakness } from '../impact/weaknesses';
import { shown } from '../format/escape';

/**
 * The first CSP policy of a host, written from what page security detected on it (issue 20, item
 * 2; `edgeguard-csp`): a `script-src` allowing every detected script and a `connect-src` allowing
 * every detected connection that is not malicious, each as tightly as its sources allow without
 * breaking what runs, and nothing malicious; with `object-src 'none'` and `base-uri 'self'`, so
 * that it has no weakness of high severity (`./weaknesses.ts`, issue 24, item 4). Pure:
 * `../cli/csp.ts` reads the detections.
 *
 * For each item, the tightest source that allows it on the page it was seen on: `'self'` for the
 * host's own origin, else a host source (`cdn.example.net`, with its scheme or port only where
 * the page's scheme would not match), else, when that source would also allow a malicious item of
 * the same kind, or is a way past the policy (a host serving JSONP endpoints or AngularJS, such as
 * `cdn.jsdelivr.net`), the item's full URL. An item that even its full URL cannot allow without
 * allowing a malicious one (a path ending in `/` is a prefix of everything under it) or a way past
 * the policy (the item is AngularJS, or a JSONP endpoint) is left out, and said why, as malicious
 * ones are.
 */

/** The directive written for each kind. */
const DIRECTIVE: Record<CspFetchKind, CspDirectiveName> = { script: 'script-src', connection: 'connect-src' };

/**
 * Directives every written policy ends with: no plugins (`<object>`, `<embed>`), which page
 * security does not detect, and a `<base>` only to the page's own origin. Without `object-src`, the
 * CSP Evaluator finds a way past the scripts' restriction; `base-uri` keeps injected markup from
 * moving the page's relative URLs to another host.
 */
export const CLOSING = "object-src 'none'; base-uri 'self'";

/** An item left out of the policy, and why. */
export interface LeftOutItem {
  kind: CspFetchKind;
  url: string;
  reason: string;
}

/** The policy's value and what it leaves out. */
export interface WrittenPolicy {
  /** The CSP value, in canonical form. */
  value: string;
  /** Items of each kind detected on the host, and how many the value allows. */
  counts: Record<CspFetchKind, { detected: number; allowed: number }>;
  leftOut: LeftOutItem[];
}

/** An item with its URL and page parsed. */
interface Placed {
  item: Detected;
  url: URL;
  page: URL;
}

/** The page an item was seen on, if it is on `host`, else the host's root over https. */
function pageOf(item: Detected, host: string): URL {
  try {
    const page = new URL(item.firstPageUrl);
    if (page.hostname === host) return page;
  } catch {
    // the host's root below
  }
  return new URL(`https://${host}/`);
}

/** CSP's reserved characters in a path, which a URL's path may hold, percent-encoded. */
function cspPath(path: string): string {
  return path.replace(/[;,']/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `text` as one source, or `undefined` when CSP cannot read it (a host name it refuses). */
function source(text: string): CspSource | undefined {
  const parsed = parseCspValue(`script-src ${text}`);
  return parsed.ok ? parsed.value[0]!.sources[0] : undefined;
}

/** The sources that could allow `placed`, tightest last: `'self'`, a host source, its full URL. */
function candidates(placed: Placed, host: string): string[] {
  const { url, page } = placed;
  const port = url.port === '' ? '' : `:${url.port}`;
  const origin = `${url.protocol}//${url.hostname}${port}`;
  const own = url.hostname === host && url.protocol === page.protocol && port === '' ? ["'self'"] : [];
  return [...own, `${url.hostname}${port}`, origin, `${origin}${cspPath(url.pathname)}`];
}

/**
 * The weakness of high severity of a source alone in `directive` (a host serving JSONP endpoints
 * or AngularJS, in `script-src`), or `undefined`; each source judged once.
 */
function weaknessOfSource(directive: CspDirectiveName): (text: string) => CspWeakness | undefined {
  const judged = new Map<string, CspWeakness | undefined>();
  return (text) => {
    if (!judged.has(text))
      judged.set(
        text,
        cspWeaknesses([{ name: directive, sources: [source(text)!] }]).find(
          (weakness) => weakness.severity === 'high' && weakness.source !== undefined,
        ),
      );
    return judged.get(text);
  };
}

/**
 * The policy for `host` from the scripts and connections detected on it (both statuses).
 *
 * @param host - the hostname the policy's expression selects.
 */
export function writePolicy(host: string, detected: Record<CspFetchKind, readonly Detected[]>): WrittenPolicy {
  const leftOut: LeftOutItem[] = [];
  const directives: string[] = [];
  const counts = {} as WrittenPolicy['counts'];
  for (const kind of ['script', 'connection'] as const) {
    const safe: Placed[] = [];
    const malicious: Placed[] = [];
    for (const item of detected[kind]) {
      const page = pageOf(item, host);
      let url: URL;
      try {
        url = new URL(item.url, page);
      } catch {
        leftOut.push({ kind, url: item.url, reason: 'its URL cannot be read' });
        continue;
      }
      const because = maliciousBecause(kind, item);
      if (because !== undefined) {
        malicious.push({ item, url, page });
        leftOut.push({ kind, url: item.url, reason: `malicious: ${because}` });
      } else safe.push({ item, url, page });
    }
    const chosen = new Set<string>();
    const weakness = weaknessOfSource(DIRECTIVE[kind]);
    let allowed = 0;
    for (const placed of safe) {
      const directive = (text: string) => [{ name: DIRECTIVE[kind], sources: [source(text)!] }];
      const allowsHere = (text: string) => cspAllowsUrl(directive(text), kind, placed.url, placed.page);
      const allowsMalicious = (text: string) =>
        malicious.find((bad) => cspAllowsUrl(directive(text), kind, bad.url, bad.page));
      const fitting = candidates(placed, host).filter((text) => source(text) !== undefined && allowsHere(text));
      const pick = fitting.find((text) => allowsMalicious(text) === undefined && weakness(text) === undefined);
      if (pick === undefined) {
        const last = fitting[fitting.length - 1];
        const bad = last === undefined ? undefined : allowsMalicious(last);
        const weak = last === undefined ? undefined : weakness(last);
        leftOut.push({
          kind,
          url: placed.item.url,
          reason:
            bad !== undefined
              ? `no source allows it without also allowing the malicious ${bad.item.url}`
              : weak !== undefined
                ? `even its full URL is a way past the policy: ${weak.message}`
                : 'no source can allow it',
        });
        continue;
      }
      chosen.add(formatCspSource(source(pick)!));
      allowed += 1;
    }
    counts[kind] = { detected: detected[kind].length, allowed };
    directives.push(`${DIRECTIVE[kind]} ${chosen.size > 0 ? [...chosen].join(' ') : "'none'"}`);
  }
  return { value: normalizeCspValue(`${directives.join('; ')}; ${CLOSING}`), counts, leftOut };
}

/** Options of {@link cspProgram}. */
export interface ProgramOptions {
  zoneId: string;
  host: string;
  /** `log` reports what the value does not allow, `allow` blocks it. */
  action: 'allow' | 'log';
}

function plural(count: number, one: string): string {
  return `${count} ${one}${count === 1 ? '' : 's'}`;
}

/** The TypeScript program declaring the written policy, what it left out and why in comments. */
export function cspProgram(options: ProgramOptions, policy: WrittenPolicy): string {
  const { zoneId, host, action } = options;
  const name = uniqueNames('csp', 'host', [{ id: host, text: host }]).get(host)!;
  const counted = (kind: CspFetchKind, noun: string) =>
    `${policy.counts[kind].allowed} of the ${plural(policy.counts[kind].detected, noun)} detected`;
  const blocks: string[][] = [
    [
      ...comment(
        `Written by edgeguard-csp from what page security detected on ${host} (zone ${zoneId}), active and infrequent: ` +
          `the policy allows ${counted('script', 'script')} (script-src) and ${counted('connection', 'connection')} ` +
          '(connect-src), each by the tightest source that allows it on the page it was seen on, and nothing malicious; ' +
          "a script on a host known to serve JSONP endpoints or AngularJS by its full URL, and object-src 'none' and " +
          "base-uri 'self', so that Google's CSP Evaluator finds no way past it. " +
          `With action "log" it reports what it does not allow; review the reports, then switch to "allow" to block. ` +
          'Run edgeguard-review on the change: its mandatory policies judge it against the same detections.',
      ),
      'import * as edgeguard from "pulumi-edgeguard";',
    ],
    [constant('zoneId', zoneId)],
  ];
  if (policy.leftOut.length > 0)
    blocks.push(
      comment(
        `Left out (${policy.leftOut.length}):\n` +
          policy.leftOut.map((item) => `- ${item.kind} ${shown(item.url)}: ${shown(item.reason)}`).join('\n'),
        { wrap: false },
      ),
    );
  blocks.push(
    newResource('CspPolicy', name, [
      ['zoneId', { ref: 'zoneId' }],
      ['description', `${host}: what page security detected, written by edgeguard-csp`],
      ['action', action],
      ['expression', `http.host eq "${host}"`],
      ['value', policy.value],
    ]),
  );
  return `${blocks.map((lines) => lines.join('\n')).join('\n\n')}\n`;
}
