import { CAA_ISSUER_DOMAINS } from '../../../rules/limits';
import type { DnsEntry, DnsRecord, ZoneHold } from '../../core/world';
import type { CertificateAuthority, Judgement, RequestedCertificateAuthority, StoredCustomHostname } from './records';

/**
 * How a custom hostname is judged (spec 3, 7; contract "Custom hostnames"): a pure function of the
 * stored record, the zone, the published DNS, the zone holds and the time, so that every rule can
 * be tested without a server. The plugin runs it on every read and persists the changes it asks for.
 */

/** Spec 8: a hostname left `moved` this long is deleted. */
export const MOVED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Spec 2.9: the wording of the ownership error. */
export const NOT_CNAMED_ERROR = 'custom hostname does not CNAME to this zone.';

/** The records of one type published at one owner name (lowercase, no trailing dot). */
export type DnsLookup = (name: string, type: DnsRecord['type']) => string[];

/** A {@link DnsLookup} over the entries of the control API; records are found by owner name, whatever entry holds them. */
export function dnsLookup(entries: readonly DnsEntry[]): DnsLookup {
  const byKey = new Map<string, string[]>();
  for (const entry of entries) {
    for (const record of entry.records) {
      const key = `${record.type} ${normalizeName(record.name)}`;
      const values = byKey.get(key) ?? [];
      values.push(record.value);
      byKey.set(key, values);
    }
  }
  return (name, type) => byKey.get(`${type} ${normalizeName(name)}`) ?? [];
}

/** What {@link evaluateCustomHostname} is given. */
export interface EvaluationInput {
  record: StoredCustomHostname;
  /** Name of the zone the custom hostname belongs to: CNAMEs must point into it. */
  zoneName: string;
  dns: DnsLookup;
  holds: readonly ZoneHold[];
  nowMs: number;
}

/** The stored facts an evaluation changed; the caller persists them. */
export type StateChange = Partial<Pick<StoredCustomHostname, 'validated_ca' | 'moved_at_ms'>>;

/**
 * The outcome: the record is gone (moved for 7 days; the caller deletes it), or it is live with
 * what to report and, when something must be remembered, the changes to persist.
 */
export type Evaluation = { deleted: true } | { deleted: false; judgement: Judgement; changes: StateChange | undefined };

/**
 * Judges a custom hostname, in this order:
 * 1. `moved` for {@link MOVED_RETENTION_MS}: deleted.
 * 2. Under a held zone (the zone itself, or below it when the hold includes subdomains): `blocked`.
 * 3. `moved` already: stays `moved` until a PATCH restarts validation (spec 3).
 * 4. Validated, and the DNS no longer points at the zone: `moved` (first seen now); otherwise `active`.
 * 5. Not owned (no TXT token, no CNAME into the zone): `pending`.
 * 6. Owned: the CA is chosen and checked against CAA: `caa_error`, or `active` and validated.
 */
export function evaluateCustomHostname(input: EvaluationInput): Evaluation {
  const { record, nowMs } = input;
  if (record.moved_at_ms !== null && nowMs >= record.moved_at_ms + MOVED_RETENTION_MS) return { deleted: true };

  const hold = heldBy(record.hostname, input.holds);
  if (hold) {
    return live({
      status: 'blocked',
      verificationErrors: [
        `${record.hostname} is associated with a held zone (${hold.zone_name}); the zone owner must release the hold before the hostname can become active.`,
      ],
      certificateAuthority:
        record.validated_ca ??
        chooseCertificateAuthority(record.ssl.certificate_authority, record.hostname, input.dns).certificateAuthority,
      sslStatus: 'pending_validation',
    });
  }

  if (record.validated_ca !== null) {
    const movedJudgement: Judgement = {
      status: 'moved',
      verificationErrors: [NOT_CNAMED_ERROR],
      certificateAuthority: record.validated_ca,
      sslStatus: 'active',
    };
    if (record.moved_at_ms !== null) return live(movedJudgement);
    if (!pointsAtZone(record, input.zoneName, input.dns)) return live(movedJudgement, { moved_at_ms: nowMs });
    return live({
      status: 'active',
      verificationErrors: [],
      certificateAuthority: record.validated_ca,
      sslStatus: 'active',
    });
  }

  const choice = chooseCertificateAuthority(record.ssl.certificate_authority, record.hostname, input.dns);
  if (!ownershipProven(record, input.zoneName, input.dns)) {
    return live({
      status: 'pending',
      verificationErrors: [NOT_CNAMED_ERROR],
      certificateAuthority: choice.certificateAuthority,
      sslStatus: 'pending_validation',
    });
  }
  if (choice.caaError !== undefined) {
    return live({
      status: 'caa_error',
      verificationErrors: [choice.caaError],
      certificateAuthority: choice.certificateAuthority,
      sslStatus: 'caa_error',
    });
  }
  return live(
    {
      status: 'active',
      verificationErrors: [],
      certificateAuthority: choice.certificateAuthority,
      sslStatus: 'active',
    },
    { validated_ca: choice.certificateAuthority },
  );
}

function live(judgement: Judgement, changes?: StateChange): Evaluation {
  return { deleted: false, judgement, changes };
}

/** The hold that blocks `hostname`, if any (spec 3: the zone itself always; subdomains only when included). */
function heldBy(hostname: string, holds: readonly ZoneHold[]): ZoneHold | undefined {
  return holds.find((hold) => {
    const zone = normalizeName(hold.zone_name);
    return hostname === zone || (hold.include_subdomains && hostname.endsWith(`.${zone}`));
  });
}

/** Ownership: the TXT token at the verification name, or a CNAME at the hostname into the zone. */
function ownershipProven(record: StoredCustomHostname, zoneName: string, dns: DnsLookup): boolean {
  return (
    txtTokenPublished(record, dns) || cnameTargets(record.hostname, dns).some((target) => inZone(target, zoneName))
  );
}

/**
 * Whether a validated hostname's DNS still points at the zone: a CNAME anywhere else means the
 * customer moved it, even if the old TXT token is still published.
 */
function pointsAtZone(record: StoredCustomHostname, zoneName: string, dns: DnsLookup): boolean {
  const targets = cnameTargets(record.hostname, dns);
  if (targets.some((target) => !inZone(target, zoneName))) return false;
  return targets.length > 0 || txtTokenPublished(record, dns);
}

function txtTokenPublished(record: StoredCustomHostname, dns: DnsLookup): boolean {
  const { name, value } = record.ownership_verification;
  return dns(name, 'TXT').some((text) => unquote(text.trim()) === value);
}

function cnameTargets(hostname: string, dns: DnsLookup): string[] {
  return dns(hostname, 'CNAME').map(normalizeName);
}

function inZone(target: string, zoneName: string): boolean {
  const zone = normalizeName(zoneName);
  return target === zone || target.endsWith(`.${zone}`);
}

/** DNS names compare case-insensitively, and a trailing dot (the root) changes nothing. */
function normalizeName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

/** A CAA record of RFC 8659 as published: `[flags] tag value`. */
export interface CaaRecord {
  flags: number;
  /** Lowercase; tags are case-insensitive. */
  tag: string;
  /** The value without surrounding quotes. */
  value: string;
}

/**
 * Parses `0 issue "pki.goog"`, `issue letsencrypt.org` or `0 issuewild ";"`. The flags may be left
 * out (people often write only tag and value), so a tag must start with a letter to be told apart
 * from them. Text that is not `[flags] tag [value]` gives `undefined`; such a record restricts nothing.
 */
export function parseCaaRecord(text: string): CaaRecord | undefined {
  const match = /^\s*(?:(\d{1,3})\s+)?([A-Za-z][A-Za-z0-9]*)(?:\s+(.*?))?\s*$/.exec(text);
  if (!match) return undefined;
  const flags = match[1] === undefined ? 0 : Number(match[1]);
  if (flags > 255) return undefined;
  return { flags, tag: match[2]!.toLowerCase(), value: unquote(match[3] ?? '') };
}

/** RFC 8659 4.2: the issuer domain is what precedes any `;` parameters; empty means nobody. */
export function caaIssuerDomain(value: string): string {
  return normalizeName(value.split(';')[0] ?? '');
}

/** The CAA RRset that governs `hostname`: the first name, climbing from it to its parents, that has CAA records. */
export interface CaaRelevantSet {
  /** Where the records were found. */
  at: string;
  /** `issue` or `issuewild`: which tag's records decide. */
  tag: 'issue' | 'issuewild';
  /** Issuer domains the records name (`""` for a record that permits nobody). */
  issuers: string[];
}

/**
 * RFC 8659 3: the relevant CAA set, found by climbing from the hostname (a wildcard's base name)
 * through its parents to the first name with CAA records. For a wildcard, `issuewild` records
 * decide when any exist, `issue` records otherwise. `undefined`: no CAA anywhere, or none that
 * restricts (only other tags), so every CA is permitted.
 */
export function relevantCaaSet(hostname: string, dns: DnsLookup): CaaRelevantSet | undefined {
  const wildcard = hostname.startsWith('*.');
  const labels = (wildcard ? hostname.slice(2) : hostname).split('.');
  for (let i = 0; i < labels.length; i++) {
    const at = labels.slice(i).join('.');
    const published = dns(at, 'CAA');
    if (published.length === 0) continue;
    const records = published.map(parseCaaRecord).filter((r): r is CaaRecord => r !== undefined);
    const issuersOf = (tag: string) => records.filter((r) => r.tag === tag).map((r) => caaIssuerDomain(r.value));
    const wild = wildcard ? issuersOf('issuewild') : [];
    if (wild.length > 0) return { at, tag: 'issuewild', issuers: wild };
    const issue = issuersOf('issue');
    return issue.length > 0 ? { at, tag: 'issue', issuers: issue } : undefined;
  }
  return undefined;
}

/** Whether `set` lets `ca` issue (no relevant set permits everyone). */
export function caaPermits(set: CaaRelevantSet | undefined, ca: CertificateAuthority): boolean {
  return set === undefined || set.issuers.includes(CAA_ISSUER_DOMAINS[ca]);
}

/** The CA in use and, when CAA forbids it, the verification error to report. */
export interface CaChoice {
  certificateAuthority: CertificateAuthority;
  caaError: string | undefined;
}

/**
 * Spec 2.9: `""` means google (the more compatible CA) unless CAA forbids it and permits
 * lets_encrypt; a named CA is used as given. The error says which record would fix it.
 */
export function chooseCertificateAuthority(
  requested: RequestedCertificateAuthority,
  hostname: string,
  dns: DnsLookup,
): CaChoice {
  const set = relevantCaaSet(hostname, dns);
  if (set === undefined) return { certificateAuthority: requested || 'google', caaError: undefined };
  if (requested !== '') {
    return {
      certificateAuthority: requested,
      caaError: caaPermits(set, requested) ? undefined : forbiddenMessage(set, requested),
    };
  }
  if (caaPermits(set, 'google')) return { certificateAuthority: 'google', caaError: undefined };
  if (caaPermits(set, 'lets_encrypt')) return { certificateAuthority: 'lets_encrypt', caaError: undefined };
  const google = CAA_ISSUER_DOMAINS.google;
  const letsEncrypt = CAA_ISSUER_DOMAINS.lets_encrypt;
  return {
    certificateAuthority: 'google',
    caaError: `CAA records for ${set.at} permit neither google (${google}) nor lets_encrypt (${letsEncrypt}); add 0 ${set.tag} "${google}" or 0 ${set.tag} "${letsEncrypt}"`,
  };
}

function forbiddenMessage(set: CaaRelevantSet, ca: CertificateAuthority): string {
  const domain = CAA_ISSUER_DOMAINS[ca];
  return `CAA records for ${set.at} do not permit ${ca} (${domain}); add 0 ${set.tag} "${domain}" or request another certificate_authority`;
}
