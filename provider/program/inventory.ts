import { Document, Scalar, type YAMLMap } from 'yaml';
import {
  JUSTIFICATION_PLACEHOLDER,
  matchKey,
  parseInventoryPage,
  parseScriptHash,
  parseScriptUrl,
} from '../../rules/inventory';
import { MALICIOUS_SCRIPT_RULE } from '../../rules/malicious';
import { comment, constant, newResource, type FlatObject } from './code';
import { uniqueNames } from './names';
import { CLOSING } from './csp';
import type { PaymentScript } from '../payment/scripts';
import { shown } from '../format/escape';

/**
 * The first script inventory of a zone's payment pages, written from what page security detected
 * on them (issue 25, item 2; `edgeguard-inventory`), as a Pulumi program in TypeScript or YAML:
 * one `ScriptInventory` with a `url` entry per script, the hash of its current version pinned and
 * its justification the marked blank {@link JUSTIFICATION_PLACEHOLDER} (which the inventory's
 * check refuses, so that preview fails until a person writes why each script is there), and per
 * host of the pages the enforcing `CspPolicy`, its value fed from the inventory's `cspSources`
 * output, so the browser loads exactly what the inventory authorizes. Pure: `../cli/inventory.ts`
 * reads the detections (`./scripts.ts`).
 *
 * Left out, each with the reason in a comment: a malicious script (`rules/malicious.ts`), which
 * must go from the pages rather than be authorized, and a script whose URL the inventory cannot
 * hold (not `https:`, above all).
 */

/** The languages the program is written in. */
export const PROGRAM_LANGUAGES = ['typescript', 'yaml'] as const;

/** A language the program is written in. */
export type ProgramLanguage = (typeof PROGRAM_LANGUAGES)[number];

/** The name of the `ScriptInventory` in the program. */
export const INVENTORY_NAME = 'payment-scripts';

/** One entry of the written inventory. */
export interface WrittenEntry {
  /** The script's URL as the inventory's parser writes it (canonical, without a fragment). */
  url: string;
  /** The hash pinned, lowercase; absent when none can be ({@link unpinned} says why). */
  hash?: string;
  /** Why the entry pins no hash, when it pins none. */
  unpinned?: string;
}

/** A detected script the inventory leaves out, and why. */
export interface LeftOutScript {
  /** The URL as page security reports it. */
  url: string;
  reason: string;
}

/** The inventory written from the detections, before it is laid out in a language. */
export interface WrittenInventory {
  /**
   * The pages as given, a character no YAML file can hold as written (a C1 control, a line
   * separator) percent-encoded, which names the same page: pages compare percent-decoded.
   */
  pages: string[];
  /** The pages' hosts, in the order of the pages: one enforcing policy each. */
  hosts: string[];
  /** One per script, sorted by URL. */
  entries: WrittenEntry[];
  /** Sorted by URL. */
  leftOut: LeftOutScript[];
  /** How many scripts page security detected on the pages. */
  detected: number;
  /** The inline scripts a probe saw on the pages (`--probe`), each an `inline` entry, sorted. */
  inline: string[];
}

/** Options of {@link inventoryProgram}. */
export interface InventoryProgramOptions {
  zoneId: string;
  /** `allow` blocks what the inventory does not authorize, `log` reports it. */
  action: 'allow' | 'log';
  language: ProgramLanguage;
}

/** Characters a YAML file cannot hold as written, or that a YAML parser takes for a line end. */
const NOT_YAML_TEXT = /[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** `page` with the characters of {@link NOT_YAML_TEXT} percent-encoded (UTF-8). */
function yamlSafePage(page: string): string {
  return page.replace(NOT_YAML_TEXT, (char) =>
    [...new TextEncoder().encode(char)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/** Why a script is malicious and left out, or `undefined`. */
function maliciousReason(script: PaymentScript): string | undefined {
  if (!script.malicious) return undefined;
  return (
    `malicious (js_integrity_score ${script.scores.js_integrity_score}; ${MALICIOUS_SCRIPT_RULE} is malicious): ` +
    'remove it from the pages; an inventory must not authorize it'
  );
}

/** The script's URL as an entry writes it, or why the inventory cannot hold it. */
function entryUrl(script: PaymentScript): { ok: true; url: string; key: string } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(script.url);
  } catch {
    return { ok: false, reason: 'its URL cannot be read' };
  }
  if (url.protocol === 'http:') {
    return {
      ok: false,
      reason:
        'not https: the inventory authorizes https: scripts only, as the browser blocks an http: script on an https: ' +
        'payment page (mixed content); serve it over https, then add it',
    };
  }
  // A fragment never reaches the server, so it names no other script; the parser refuses one.
  url.hash = '';
  const parsed = parseScriptUrl(url.href);
  if (!parsed.ok) return { ok: false, reason: `the inventory cannot hold its URL: ${parsed.error.reason}` };
  return { ok: true, url: parsed.value.text, key: matchKey('url', parsed.value) };
}

/** The hash an entry for `scripts` (one script, or several URLs of the same one) pins, or why none. */
function pinOf(scripts: readonly PaymentScript[]): Pick<WrittenEntry, 'hash' | 'unpinned'> {
  const hashes = new Set(scripts.map((script) => script.hash));
  if (hashes.size > 1) {
    return {
      unpinned: `page security reports the script at ${scripts.length} URLs the inventory takes for one, with different hashes; pin the one you approve`,
    };
  }
  const [hash] = hashes;
  if (hash === undefined) return { unpinned: 'page security reports no hash for it (a plan without hashes)' };
  const parsed = parseScriptHash(hash);
  if (!parsed.ok) return { unpinned: `its hash as page security reports it cannot be pinned: ${parsed.error.reason}` };
  return { hash: parsed.value };
}

/**
 * The inventory of `pages` from the scripts page security detected on them (as
 * `readPaymentScripts` reads them against an inventory of those pages and no entries).
 *
 * @param pages - the payment pages as given; each must be one `parseInventoryPage` accepts.
 * @param inline - the CSP hash sources (`'sha256-<base64>'`) of the inline scripts a probe saw on
 *   the pages (`edgeguard-probe`'s report, issue 41): one `inline` entry each.
 */
export function writeInventory(
  pages: readonly string[],
  scripts: readonly PaymentScript[],
  inline: readonly string[] = [],
): WrittenInventory {
  const hosts: string[] = [];
  for (const page of pages) {
    const parsed = parseInventoryPage(page);
    if (!parsed.ok)
      throw new Error(`page ${JSON.stringify(page)} is not one the inventory takes: ${parsed.error.message}`);
    if (!hosts.includes(parsed.value.host)) hosts.push(parsed.value.host);
  }
  const leftOut: LeftOutScript[] = [];
  const groups = new Map<string, { url: string; scripts: PaymentScript[] }>();
  for (const script of scripts) {
    const malicious = maliciousReason(script);
    if (malicious !== undefined) {
      leftOut.push({ url: script.url, reason: malicious });
      continue;
    }
    const entry = entryUrl(script);
    if (!entry.ok) {
      leftOut.push({ url: script.url, reason: entry.reason });
      continue;
    }
    // URLs written differently that name the same script make one entry: the inventory refuses two.
    const group = groups.get(entry.key);
    if (group === undefined) groups.set(entry.key, { url: entry.url, scripts: [script] });
    else {
      group.scripts.push(script);
      if (entry.url < group.url) group.url = entry.url;
    }
  }
  const byUrl = <T extends { url: string }>(a: T, b: T) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0);
  return {
    pages: pages.map(yamlSafePage),
    hosts,
    entries: [...groups.values()].map((group) => ({ url: group.url, ...pinOf(group.scripts) })).sort(byUrl),
    leftOut: leftOut.sort(byUrl),
    detected: scripts.length,
    inline: [...new Set(inline)].sort(),
  };
}

/** The texts both languages write: comments, names and descriptions. */
interface Texts {
  header: string;
  leftOut?: string;
  unpinned?: string;
  policies: Array<{ host: string; name: string; comment: string; description: string }>;
}

function counted(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function textsOf(options: InventoryProgramOptions, inventory: WrittenInventory): Texts {
  const { zoneId, action } = options;
  const names = uniqueNames(
    'payment-csp',
    'host',
    inventory.hosts.map((host) => ({ id: host, text: host })),
  );
  const unpinned = inventory.entries.filter((entry) => entry.unpinned !== undefined);
  const listed = [
    ...(inventory.leftOut.length > 0 ? ['the scripts left out'] : []),
    ...(unpinned.length > 0 ? ['the entries not pinned'] : []),
  ];
  const effect =
    action === 'allow'
      ? 'the browser blocks every script it does not authorize'
      : 'the browser reports every script it does not authorize, without blocking it (switch to "allow" to enforce it)';
  return {
    header:
      `Written by edgeguard-inventory from what page security detected on the payment pages ${inventory.pages.join(', ')} ` +
      `(zone ${zoneId}), active and infrequent: the inventory of their scripts (PCI DSS 4.0 requirement 6.4.3), ` +
      `${counted(inventory.entries.length, 'entry', 'entries')} for the ${counted(inventory.detected, 'script', 'scripts')} ` +
      "detected, each pinning the hash of its script's current version" +
      (listed.length > 0 ? ` (${listed.join(' and ')} are listed below, with why)` : '') +
      (inventory.inline.length > 0
        ? `, then ${counted(inventory.inline.length, 'inline entry', 'inline entries')} for the inline scripts edgeguard-probe saw, each by the hash of its text`
        : '') +
      `, and for each host of the pages the CspPolicy that enforces it: ${effect}.\n` +
      `Every justification is the marked blank "${JUSTIFICATION_PLACEHOLDER}", which pulumi preview refuses, naming the entry, ` +
      'until a person writes why the script is on the payment pages (the business or technical reason). Before ' +
      'justifying an entry, check that the script belongs there: if it does not, remove the entry and the script ' +
      'from the pages. An owner (the person or team who answers for the script) may be added to each entry.',
    ...(inventory.leftOut.length > 0
      ? {
          leftOut:
            `Left out (${inventory.leftOut.length}):\n` +
            inventory.leftOut.map((script) => `- ${shown(script.url)}: ${shown(script.reason)}`).join('\n'),
        }
      : {}),
    ...(unpinned.length > 0
      ? {
          unpinned:
            `Not pinned (${unpinned.length}):\n` +
            unpinned.map((entry) => `- ${shown(entry.url)}: ${entry.unpinned}`).join('\n'),
        }
      : {}),
    policies: inventory.hosts.map((host) => ({
      host,
      name: names.get(host)!,
      comment:
        `The policy covers every page of ${host}, not only its payment pages: its expression selects the host ` +
        `alone (the service's expressions name no path). With action "allow" a script the inventory does not ` +
        `authorize is blocked on every page of ${host}; if the host serves other pages, give the payment pages a ` +
        'host of their own, or start with "log".',
      description: `${host}: only the scripts of the payment pages' inventory (PCI DSS 6.4.3), written by edgeguard-inventory`,
    })),
  };
}

/** The expression of a host's policy. */
const expressionOf = (host: string) => `http.host eq "${host}"`;

/** The entries as the inventory's `scripts` input. */
function scriptsInput(inventory: WrittenInventory): FlatObject[] {
  return [
    ...inventory.entries.map((entry) => ({
      url: entry.url,
      justification: JUSTIFICATION_PLACEHOLDER,
      ...(entry.hash !== undefined ? { hash: entry.hash } : {}),
    })),
    ...inventory.inline.map((source) => ({ inline: source, justification: JUSTIFICATION_PLACEHOLDER })),
  ];
}

function typescriptProgram(options: InventoryProgramOptions, inventory: WrittenInventory, texts: Texts): string {
  const declaration = newResource('ScriptInventory', INVENTORY_NAME, [
    ['zoneId', { ref: 'zoneId' }],
    ['pages', inventory.pages],
    ['scripts', scriptsInput(inventory)],
  ]);
  declaration[0] = `const inventory = ${declaration[0]}`;
  const blocks: string[][] = [
    [
      ...comment(texts.header),
      'import * as pulumi from "@pulumi/pulumi";',
      'import * as edgeguard from "pulumi-edgeguard";',
    ],
    [constant('zoneId', options.zoneId)],
  ];
  if (texts.leftOut !== undefined) blocks.push(comment(texts.leftOut, { wrap: false }));
  if (texts.unpinned !== undefined) blocks.push(comment(texts.unpinned, { wrap: false }));
  blocks.push(declaration);
  for (const policy of texts.policies) {
    blocks.push([
      ...comment(policy.comment),
      ...newResource('CspPolicy', policy.name, [
        ['zoneId', { ref: 'zoneId' }],
        ['description', policy.description],
        ['action', options.action],
        ['expression', expressionOf(policy.host)],
        ['value', { code: `pulumi.interpolate\`script-src \${inventory.cspSources}; ${CLOSING}\`` }],
      ]),
    ]);
  }
  return `${blocks.map((lines) => lines.join('\n')).join('\n\n')}\n`;
}

/**
 * A string of the program as a YAML scalar Pulumi YAML reads as that string: double-quoted (so
 * that no value is taken for a number, a boolean or YAML syntax) with every `$` doubled (Pulumi
 * YAML reads `${...}` in any string as an interpolation, and `$$` as `$`).
 */
function yamlString(text: string): Scalar {
  const scalar = new Scalar(text.replaceAll('$', '$$$$'));
  scalar.type = Scalar.QUOTE_DOUBLE;
  return scalar;
}

/** `text` as a comment of the `yaml` package, which writes the `#` of each line. */
const yamlComment = (text: string, wrap = true) =>
  comment(text, { marker: '#', wrap })
    .map((line) => line.slice(1))
    .join('\n');

function yamlProgram(options: InventoryProgramOptions, inventory: WrittenInventory, texts: Texts): string {
  const resources: Record<string, unknown> = {
    [INVENTORY_NAME]: {
      type: 'edgeguard:ScriptInventory',
      properties: {
        zoneId: '${zoneId}',
        pages: inventory.pages.map(yamlString),
        scripts: scriptsInput(inventory).map((entry) =>
          Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, yamlString(String(value))])),
        ),
      },
    },
  };
  for (const policy of texts.policies) {
    resources[policy.name] = {
      type: 'edgeguard:CspPolicy',
      properties: {
        zoneId: '${zoneId}',
        description: yamlString(policy.description),
        action: options.action,
        expression: yamlString(expressionOf(policy.host)),
        value: `script-src \${${INVENTORY_NAME}.cspSources}; ${CLOSING}`,
      },
    };
  }
  const document = new Document({
    name: INVENTORY_NAME,
    description: "The payment pages' scripts (PCI DSS 6.4.3) and the CSP policies that enforce them",
    runtime: 'yaml',
    config: { zoneId: { type: 'string', default: yamlString(options.zoneId) } },
    resources,
  });
  document.commentBefore = yamlComment(texts.header);
  const config = document.get('config') as YAMLMap<Scalar, unknown>;
  config.items[0]!.key.commentBefore = yamlComment('The zone of the payment pages.');
  const declared = document.get('resources') as YAMLMap<Scalar, unknown>;
  const [inventoryItem, ...policyItems] = declared.items;
  const notes = [texts.leftOut, texts.unpinned].filter((text) => text !== undefined);
  if (notes.length > 0) inventoryItem!.key.commentBefore = yamlComment(notes.join('\n\n'), false);
  for (const [index, item] of policyItems.entries())
    item.key.commentBefore = yamlComment(texts.policies[index]!.comment);
  // No folding: a value stays on its line, as a person reading or editing the file expects.
  return document.toString({ lineWidth: 0 });
}

/** The program declaring the written inventory and its enforcing policies, in `options.language`. */
export function inventoryProgram(options: InventoryProgramOptions, inventory: WrittenInventory): string {
  const texts = textsOf(options, inventory);
  return options.language === 'yaml'
    ? yamlProgram(options, inventory, texts)
    : typescriptProgram(options, inventory, texts);
}
