import { parsePolicyExpression } from '../../rules/expression';
import type { AlertPolicy } from '../client/notifications';
import { CERTIFICATE_AUTHORITIES, isStatus, knownValue, type CustomHostname } from '../client/custom-hostnames';
import type { PageSecurityPolicy } from '../client/page-security';
import { checkInputs } from '../runtime/check';
import * as csp from '../runtime/csp-policy';
import * as hostnames from '../runtime/custom-hostname';
import { blockedAdvice, caaAdvice, movedAdvice, REVALIDATE, serviceReports } from '../runtime/custom-hostname-advice';
import * as notifications from '../runtime/health-notification';
import { comment, commentedOut, constant, newResource, type Value } from './code';
import type { Live, LiveAccount, LiveZone } from '../import/live';
import { uniqueNames } from './names';
import type { z } from 'zod';

/**
 * The program `edgeguard-import` writes: one resource per object read, declared as it is with
 * `adoptId` set, so that its first `pulumi up` adopts everything and writes nothing. Whether an
 * object can be declared is decided by the resource itself: its `check` must accept the
 * declaration (the same schema `pulumi preview` applies), and its adoption must be able to take
 * the object over. What cannot is left out, as a comment in the program saying why (and the
 * declaration, commented out, when there is one to show), and is listed in the result.
 */

/** An object left out of the program, and why. */
export interface LeftOut {
  /** The object, as in `custom hostname <id> ("shop.example.com")`. */
  what: string;
  reasons: string[];
}

/** The program and what is in it. */
export interface ImportedProgram {
  /** The TypeScript text, in Prettier's default format. */
  text: string;
  /** Resources declared, by type, such as `{ CspPolicy: 3 }`. */
  declared: Record<string, number>;
  leftOut: LeftOut[];
  /** Pools noted in a comment because they still have a legacy e-mail. */
  legacyPools: number;
}

/** At most this many pools are listed by name in the legacy e-mail comment. */
const POOLS_LISTED = 50;

/** One resource to declare, or to describe as left out. */
interface Candidate {
  type: string;
  name: string;
  what: string;
  properties: Array<readonly [string, Value]>;
  /** Lines of comment above the declaration. */
  notes: string[];
  /** Why it is left out; empty when it is declared. */
  reasons: string[];
  /** Whether a left-out declaration is shown, commented out (not when it could never be right). */
  show: boolean;
}

const zoneRef = { ref: 'zoneId' };
const accountRef = { ref: 'accountId' };

/** Why `check` refuses `args` (as `property: reason`); empty when it accepts them. */
function refusals(schema: z.ZodType, args: Record<string, unknown>): string[] {
  return (checkInputs(schema, args).failures ?? []).map((failure) => `${failure.property} ${failure.reason}`);
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function cspCandidates(zone: LiveZone): Candidate[] {
  const hostOf = (policy: PageSecurityPolicy) => {
    const parsed = parsePolicyExpression(policy.expression);
    return parsed.ok ? parsed.value.hostname : '';
  };
  const policies = [...zone.cspPolicies].sort(
    (a, b) => byText(a.description, b.description) || byText(a.expression, b.expression) || byText(a.id, b.id),
  );
  const names = uniqueNames(
    'csp',
    'policy',
    policies.map((policy) => ({ id: policy.id, text: policy.description || hostOf(policy) })),
  );
  return policies.map((policy) => {
    const live = csp.liveInputs(zone.zoneId, policy);
    const args = { adoptId: policy.id, ...live };
    return {
      type: 'CspPolicy',
      name: names.get(policy.id)!,
      what: `CSP policy ${policy.id} (${JSON.stringify(policy.description || policy.expression)})`,
      properties: [
        ['adoptId', policy.id],
        ['zoneId', zoneRef],
        ['description', live.description],
        ['action', live.action],
        ['expression', live.expression],
        ['value', live.value],
        ['enabled', live.enabled],
      ],
      notes: [],
      reasons: refusals(csp.inputsSchema, args),
      show: true,
    };
  });
}

/** Why a hostname in `status` cannot be adopted without failing the step, with what to do. */
function statusReason(record: CustomHostname): string[] {
  if (!isStatus(record.status, REVALIDATE)) return [];
  const advice =
    record.status === 'caa_error'
      ? caaAdvice(record, knownValue(CERTIFICATE_AUTHORITIES, record.ssl.certificate_authority))
      : record.status === 'blocked'
        ? blockedAdvice()
        : movedAdvice(record);
  return [
    `its status is ${record.status}, so adopting it fails that step of pulumi up (it is recorded, and the next pulumi up restarts validation): ${advice}${serviceReports(record)}`,
  ];
}

function hostnameCandidates(zone: LiveZone): Candidate[] {
  const records = [...zone.customHostnames].sort((a, b) => byText(a.hostname, b.hostname) || byText(a.id, b.id));
  const names = uniqueNames(
    'hostname',
    'custom',
    records.map((record) => ({ id: record.id, text: record.hostname.replace(/^\*\./, 'wildcard.') })),
  );
  return records.map((record) => {
    const live = hostnames.liveInputs({}, zone.zoneId, record);
    const args = { adoptId: record.id, ...live };
    return {
      type: 'CustomHostname',
      name: names.get(record.id)!,
      what: `custom hostname ${record.id} (${JSON.stringify(record.hostname)})`,
      properties: [
        ['adoptId', record.id],
        ['zoneId', zoneRef],
        ['hostname', live.hostname],
        ['ssl', { method: live.ssl.method, type: live.ssl.type, certificateAuthority: live.ssl.certificateAuthority }],
        ['branding', live.branding],
      ],
      notes: record.status === 'pending' ? ['Pending: its owner has not proven ownership yet.'] : [],
      reasons: [...refusals(hostnames.inputsSchema, args), ...statusReason(record)],
      show: true,
    };
  });
}

function notificationCandidates(account: LiveAccount): Candidate[] {
  const policies = [...account.alertPolicies].sort((a, b) => byText(a.name, b.name) || byText(a.id, b.id));
  const names = uniqueNames(
    'alert',
    'notification',
    policies.map((policy) => ({ id: policy.id, text: policy.name })),
  );
  return policies.map((policy: AlertPolicy) => {
    const base = {
      type: 'HealthNotification',
      name: names.get(policy.id)!,
      what: `notification policy ${policy.id} (${JSON.stringify(policy.name)})`,
      notes: [],
    };
    const conflicts = notifications.adoptionConflicts(policy);
    if (conflicts.length > 0) return { ...base, properties: [], reasons: conflicts, show: false };
    const live = notifications.liveInputs(account.accountId, policy);
    const properties: Array<readonly [string, Value]> = [
      ['adoptId', policy.id],
      ['accountId', accountRef],
      ['name', live.name],
      ...(live.description !== '' ? [['description', live.description] as const] : []),
      ['enabled', live.enabled],
      ['poolIds', live.poolIds],
      ['newHealth', live.newHealth],
      ['eventSource', live.eventSource],
      ...(live.emails.length > 0 ? [['emails', live.emails] as const] : []),
      ...(live.webhookIds.length > 0 ? [['webhookIds', live.webhookIds] as const] : []),
    ];
    return {
      ...base,
      properties,
      reasons: refusals(notifications.inputsSchema, { adoptId: policy.id, ...live }),
      show: true,
    };
  });
}

/** The lines of one candidate: its notes and declaration, or why it is left out. */
function candidateLines(candidate: Candidate): string[] {
  const code = candidate.show ? newResource(candidate.type, candidate.name, candidate.properties) : [];
  if (candidate.reasons.length === 0) return [...candidate.notes.flatMap((note) => comment(note)), ...code];
  return [
    ...comment(
      `Left out: ${candidate.what} cannot be declared as it is: ${candidate.reasons.join('; ')}` +
        (candidate.show ? '\nThe declaration it would have, to adapt:' : ''),
    ),
    ...commentedOut(code),
  ];
}

/** A section: its heading comment, then each candidate, a blank line between them. */
function section(heading: string, candidates: readonly Candidate[]): string[][] {
  if (candidates.length === 0) return [];
  const [first, ...rest] = candidates.map(candidateLines);
  return [[...comment(heading), ...first!], ...rest];
}

function legacyPoolLines(account: LiveAccount): string[] {
  const pools = account.legacyPools;
  if (pools.length === 0) return [];
  const listed = pools
    .slice(0, POOLS_LISTED)
    .map((pool) => `  ${JSON.stringify(pool.name)} (${pool.id}): ${pool.notification_email}`);
  const more = pools.length > POOLS_LISTED ? [`  and ${pools.length - POOLS_LISTED} more`] : [];
  return [
    ...comment(
      `${pools.length} pool${pools.length === 1 ? '' : 's'} of the account still send health alerts to a legacy e-mail (notification_email), ` +
        'which is deprecated: the service keeps sending deprecation e-mails while any pool has one. ' +
        'EdgeGuard manages no pool, so this program leaves them as they are. To migrate, declare a HealthNotification ' +
        'for these pools and a PoolNotificationMigration that depends on it (it removes the legacy e-mails):',
    ),
    ...comment([...listed, ...more].join('\n'), { wrap: false }),
  ];
}

/** The program for what was read. */
export function importedProgram(live: Live): ImportedProgram {
  const { zone, account } = live;
  const page: Candidate = {
    type: 'PageSecuritySetting',
    name: 'page-security',
    what: `the page security setting of zone ${zone.zoneId}`,
    properties: [
      ['zoneId', zoneRef],
      ['enabled', zone.pageSecurity.enabled],
    ],
    notes: [],
    reasons: [],
    show: true,
  };
  const cspPolicies = cspCandidates(zone);
  const customHostnames = hostnameCandidates(zone);
  const healthNotifications = account === undefined ? [] : notificationCandidates(account);
  const all = [page, ...cspPolicies, ...customHostnames, ...healthNotifications];
  const declaredNotifications = healthNotifications.some((candidate) => candidate.reasons.length === 0);
  const from = account === undefined ? `zone ${zone.zoneId}` : `zone ${zone.zoneId} and account ${account.accountId}`;

  const blocks: string[][] = [
    [
      ...comment(
        `Written by edgeguard-import from ${from}: one resource for each object read, declared as it was, with adoptId set, ` +
          'so that the first pulumi up takes each over as it is, creating and deleting nothing, and the preview after it ' +
          'shows no change. adoptId matters only when a resource is created; it can stay. The service address and the ' +
          'credentials come from the stack configuration or the environment, as for any EdgeGuard program.' +
          (account === undefined
            ? '\nNo account was given (--account), so its health notifications and pools were not read.'
            : ''),
      ),
      'import * as edgeguard from "pulumi-edgeguard";',
    ],
    [constant('zoneId', zone.zoneId), ...(declaredNotifications ? [constant('accountId', account!.accountId)] : [])],
    ...section(
      'Page security of the zone. A zone has exactly one setting, which create takes over (it has no adoptId): ' +
        'it writes only when enabled differs, and a destroy puts back the value found.',
      [page],
    ),
    ...section(`CSP policies of the zone: ${cspPolicies.length}.`, cspPolicies),
    ...section(
      `Custom hostnames of the zone: ${customHostnames.length}. Each keeps its ownership token and status. ` +
        'ssl.certificateAuthority is the certificate authority in use: the service does not say whether it was ' +
        'asked for or chosen ("" would let it choose).',
      customHostnames,
    ),
    ...section(
      `Load-balancing health notifications of the account: ${healthNotifications.length}.`,
      healthNotifications,
    ),
  ];
  if (account !== undefined && account.legacyPools.length > 0) blocks.push(legacyPoolLines(account));

  const declared: Record<string, number> = {};
  for (const candidate of all) {
    if (candidate.reasons.length === 0) declared[candidate.type] = (declared[candidate.type] ?? 0) + 1;
  }
  return {
    text: `${blocks.map((lines) => lines.join('\n')).join('\n\n')}\n`,
    declared,
    leftOut: all
      .filter((candidate) => candidate.reasons.length > 0)
      .map((candidate) => ({ what: candidate.what, reasons: candidate.reasons })),
    legacyPools: account?.legacyPools.length ?? 0,
  };
}
