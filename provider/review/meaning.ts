import { parseCspValue, qualifiedCspSources } from '../../rules/csp';
import { parsePolicyExpression } from '../../rules/expression';
import type { ScriptEntryInput } from '../../rules/inventory';
import { entryChanges, previousEntries } from '../../rules/inventory-changes';
import { nameOf, resourceOf } from '../stack/export';

/**
 * What a change to one resource means, in place of the whole strings a diff shows (issue 9, item
 * 3): the CSP sources added or removed, an expression's host that changes, a notification's pools
 * and filters added or removed as sets, a custom hostname and whether it is replaced, a script
 * inventory's entries added, removed and re-pinned and, found by a refresh, the scripts whose
 * integrity changed. Pure: it reads the old and new inputs the engine reports for a step (the
 * outputs before and after, for a refresh).
 */

/** What the engine does to the resource. */
export type ChangeKind = 'create' | 'update' | 'replace' | 'delete';

/** One resource's change, as the engine reports its step. */
export interface ResourceChange {
  urn: string;
  /** The resource's type token. */
  type: string;
  kind: ChangeKind;
  /** The inputs before (none for a create). */
  olds?: Record<string, unknown>;
  /** The inputs after (none for a delete). */
  news?: Record<string, unknown>;
}

/** A change in meaning: the resource, and what changes, one phrase per item. */
export interface MeaningRow {
  /** The resource's name in the program. */
  name: string;
  /** The resource's kind: `CspPolicy`, `HealthNotification`, ..., or the type token of another provider. */
  resource: string;
  kind: ChangeKind;
  changes: string[];
}

/** A property as text for a phrase: strings as they are, the rest as JSON. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The values of a list property as a set of strings (an absent list is empty), lowercase unless `caseSensitive`. */
function setOf(value: unknown, caseSensitive = false): Set<string> {
  return new Set(
    Array.isArray(value) ? value.map((item) => (caseSensitive ? text(item) : text(item).toLowerCase())) : [],
  );
}

/** `<what> added: a, b; removed: c`, or nothing when the sets are equal. */
function setChange(what: string, olds: unknown, news: unknown, caseSensitive = false): string[] {
  const before = setOf(olds, caseSensitive);
  const after = setOf(news, caseSensitive);
  const added = [...after].filter((item) => !before.has(item)).sort();
  const removed = [...before].filter((item) => !after.has(item)).sort();
  const parts = [
    ...(added.length > 0 ? [`added ${added.join(', ')}`] : []),
    ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : []),
  ];
  return parts.length > 0 ? [`${what}: ${parts.join('; ')}`] : [];
}

function hostOf(expression: unknown): string | undefined {
  if (typeof expression !== 'string') return undefined;
  const parsed = parsePolicyExpression(expression);
  return parsed.ok ? parsed.value.hostname : undefined;
}

/** `<directive> <source>` of every source, canonical ({@link qualifiedCspSources}); `undefined` when the value cannot be read. */
function sourcesOf(value: unknown): Set<string> | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = parseCspValue(value);
  if (!parsed.ok) return undefined;
  return new Set(qualifiedCspSources(parsed.value));
}

function cspPolicyChanges(olds: Record<string, unknown>, news: Record<string, unknown>): string[] {
  const changes: string[] = [];
  const hostBefore = hostOf(olds.expression);
  const hostAfter = hostOf(news.expression);
  if (hostBefore !== hostAfter)
    changes.push(`host: ${hostBefore ?? text(olds.expression)} -> ${hostAfter ?? text(news.expression)}`);
  if (olds.action !== news.action) changes.push(`action: ${text(olds.action)} -> ${text(news.action)}`);
  if ((olds.enabled ?? true) !== (news.enabled ?? true)) changes.push(news.enabled === false ? 'disabled' : 'enabled');
  const before = sourcesOf(olds.value);
  const after = sourcesOf(news.value);
  if (before !== undefined && after !== undefined) {
    const added = [...after].filter((source) => !before.has(source)).sort();
    const removed = [...before].filter((source) => !after.has(source)).sort();
    if (added.length > 0) changes.push(`sources added: ${added.join(', ')}`);
    if (removed.length > 0) changes.push(`sources removed: ${removed.join(', ')}`);
  } else if (olds.value !== news.value) changes.push(`value: ${text(olds.value)} -> ${text(news.value)}`);
  if (olds.zoneId !== news.zoneId) changes.push(`zone: ${text(olds.zoneId)} -> ${text(news.zoneId)}`);
  if (olds.description !== news.description) changes.push('description changed');
  return changes;
}

function healthNotificationChanges(olds: Record<string, unknown>, news: Record<string, unknown>): string[] {
  return [
    ...(olds.name !== news.name ? [`name: ${text(olds.name)} -> ${text(news.name)}`] : []),
    ...((olds.enabled ?? true) !== (news.enabled ?? true) ? [news.enabled === false ? 'disabled' : 'enabled'] : []),
    ...setChange('pools', olds.poolIds, news.poolIds),
    ...setChange('health filter', olds.newHealth, news.newHealth),
    ...setChange('event source filter', olds.eventSource, news.eventSource),
    ...setChange('e-mails', olds.emails, news.emails),
    ...setChange('webhooks', olds.webhookIds, news.webhookIds),
    ...(olds.accountId !== news.accountId ? [`account: ${text(olds.accountId)} -> ${text(news.accountId)}`] : []),
  ];
}

function customHostnameChanges(olds: Record<string, unknown>, news: Record<string, unknown>): string[] {
  return [
    ...(olds.hostname !== news.hostname ? [`hostname: ${text(olds.hostname)} -> ${text(news.hostname)}`] : []),
    ...genericChanges(olds, news, ['hostname']),
  ];
}

/** The entries of an inventory's `scripts`, as written; anything else is none. */
function entriesOf(scripts: unknown): ScriptEntryInput[] {
  return Array.isArray(scripts)
    ? scripts.filter((entry): entry is ScriptEntryInput => typeof entry === 'object' && entry !== null)
    : [];
}

/** A script of an inventory's `detected` output, as far as a change of it is told. */
interface DetectedOutput {
  id: string;
  url: string;
  hash?: string;
  integrity: string;
  pages: string[];
}

function detectedOf(value: unknown): Map<string, DetectedOutput> {
  const scripts = Array.isArray(value) ? (value as DetectedOutput[]) : [];
  return new Map(scripts.filter((script) => typeof script?.id === 'string').map((script) => [script.id, script]));
}

/**
 * What changed in what page security detects on the pages (a refresh's `detected`): scripts newly
 * detected or gone, and for the others their integrity, live hash and pages.
 */
function detectedChanges(olds: unknown, news: unknown): string[] {
  const before = detectedOf(olds);
  const after = detectedOf(news);
  const changes: string[] = [];
  const hash = (script: DetectedOutput) => script.hash ?? 'none';
  for (const [id, now] of after) {
    const was = before.get(id);
    if (was === undefined) {
      changes.push(`newly detected: ${now.url} (${now.integrity})`);
      continue;
    }
    if (was.integrity !== now.integrity)
      changes.push(
        `integrity changed: ${now.url}: ${was.integrity} -> ${now.integrity} (hash ${hash(was)} -> ${hash(now)})`,
      );
    else if (hash(was) !== hash(now)) changes.push(`live hash changed: ${now.url}: ${hash(was)} -> ${hash(now)}`);
    changes.push(...setChange(`pages of ${now.url}`, was.pages, now.pages, true));
  }
  for (const [id, was] of before) if (!after.has(id)) changes.push(`no longer detected: ${was.url}`);
  return changes;
}

function scriptInventoryChanges(olds: Record<string, unknown>, news: Record<string, unknown>): string[] {
  const entries = entryChanges(previousEntries(entriesOf(olds.scripts)), previousEntries(entriesOf(news.scripts)));
  const texts = (list: Array<{ text: string }>) => list.map((entry) => entry.text).join(', ');
  return [
    ...(olds.zoneId !== news.zoneId ? [`zone: ${text(olds.zoneId)} -> ${text(news.zoneId)}`] : []),
    ...setChange('pages', olds.pages, news.pages, true),
    ...(entries.added.length > 0 ? [`entries added: ${texts(entries.added)}`] : []),
    ...(entries.removed.length > 0 ? [`entries removed: ${texts(entries.removed)}`] : []),
    ...entries.repinned.map(
      (change) => `re-pinned: ${change.entry.text} (${change.from ?? 'not pinned'} -> ${change.to ?? 'not pinned'})`,
    ),
    ...entries.justified.map((change) => `justification changed: ${change.entry.text}`),
    ...entries.owned.map(
      (change) => `owner changed: ${change.entry.text} (${change.from ?? 'none'} -> ${change.to ?? 'none'})`,
    ),
    ...detectedChanges(olds.detected, news.detected),
  ];
}

/** The properties whose values differ, named (the serialized provider aside). */
function genericChanges(olds: Record<string, unknown>, news: Record<string, unknown>, skip: string[] = []): string[] {
  const keys = [...new Set([...Object.keys(olds), ...Object.keys(news)])]
    .filter((key) => key !== '__provider' && !skip.includes(key) && !same(olds[key], news[key]))
    .sort();
  return keys.map((key) => `${key}: ${text(olds[key]) ?? '(none)'} -> ${text(news[key]) ?? '(none)'}`);
}

/** What a created resource is, in a phrase or two. */
function creation(resource: string, news: Record<string, unknown>): string[] {
  switch (resource) {
    case 'CspPolicy': {
      const sources = sourcesOf(news.value);
      return [
        `${text(news.action)} on ${hostOf(news.expression) ?? text(news.expression)}`,
        sources !== undefined ? `sources: ${[...sources].join(', ')}` : `value: ${text(news.value)}`,
      ];
    }
    case 'HealthNotification':
      return [`pools: ${setOf(news.poolIds).size}`];
    case 'CustomHostname':
      return [`hostname: ${text(news.hostname)}`];
    case 'PageSecuritySetting':
      return [news.enabled === false ? 'page security off' : 'page security on'];
    case 'ScriptInventory': {
      const entries = previousEntries(entriesOf(news.scripts));
      const pinned = entries.filter((entry) => entry.kind === 'url' && entry.hash !== undefined).length;
      return [
        `pages: ${[...setOf(news.pages, true)].join(', ')}`,
        `${entries.length} ${entries.length === 1 ? 'entry' : 'entries'} (${pinned} pinned): ${entries.map((entry) => entry.address.text).join(', ')}`,
      ];
    }
    default:
      return [];
  }
}

/** The change in meaning of one resource's step. */
export function meaningOf(change: ResourceChange): MeaningRow {
  const resource = resourceOf(change.type);
  const row = { name: nameOf(change.urn), resource, kind: change.kind };
  const olds = change.olds ?? {};
  const news = change.news ?? {};
  if (change.kind === 'create') return { ...row, changes: creation(resource, news) };
  if (change.kind === 'delete') return { ...row, changes: ['deleted'] };
  let changes: string[];
  switch (resource) {
    case 'CspPolicy':
      changes = cspPolicyChanges(olds, news);
      break;
    case 'HealthNotification':
      changes = healthNotificationChanges(olds, news);
      break;
    case 'CustomHostname':
      changes = customHostnameChanges(olds, news);
      break;
    case 'ScriptInventory':
      changes = scriptInventoryChanges(olds, news);
      break;
    default:
      changes = genericChanges(olds, news);
  }
  return { ...row, changes: changes.length > 0 ? changes : ['no change in meaning (only its form)'] };
}
