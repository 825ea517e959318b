import * as fs from 'node:fs';
import {
  UnknownValueError,
  type PolicyConfigSchema,
  type PolicyResource,
  type ReportViolation,
  type StackValidationArgs,
  type StackValidationPolicy,
} from '@pulumi/policy';
import type * as zod from 'zod';
import { BROWSERS, GOVERNING_DIRECTIVES, type Browser } from '../../rules/csp-match';
import { clientLayer } from '../helpers/client-layer';
import { resourceOf } from './meaning';
import { stackConfigValue } from './pack-config';
import {
  acceptBlocked,
  acceptMalicious,
  type Acceptance,
  type DetectedImpact,
  type DetectedLine,
  type DetectedSample,
  type HeaderRef,
} from './impact';
import type * as plan from './plan';
import type * as readAhead from './read-ahead';
import type * as weaknesses from './weaknesses';
import type {
  MigrationUnderReview,
  NotificationUnderReview,
  PolicyReview,
  PolicyUnderReview,
  ReviewInput,
  ReviewResult,
} from './plan';

/**
 * The policies of EdgeGuard's policy pack (`./pack.ts` serves them; `policy-pack/` holds the
 * executable the engine runs). All are stack policies: they see every resource of the stack at
 * once, so the service is read once for all of them (`./plan.ts`), by the first that runs.
 *
 * Settings come from the stack's `edgeguard:*` configuration, as the engine gives it to the pack
 * (`./pack-config.ts`), else the environment (`EDGEGUARD_*`), as for the stack's resources. Two
 * more variables serve `edgeguard-review`, and anyone who wants the same: {@link REVIEW_BASELINE_ENV}
 * and {@link REVIEW_OUTPUT_ENV}.
 */

/** The policies' names. */
export const POLICY_NAMES = {
  blocks: 'csp-blocks-detected-scripts',
  blocksConnections: 'csp-blocks-detected-connections',
  malicious: 'csp-allows-malicious-script',
  maliciousConnection: 'csp-allows-malicious-connection',
  impact: 'csp-change-impact',
  weaknesses: 'csp-weaknesses',
  pools: 'pools-left-without-alerts',
} as const;

/**
 * A file holding `pulumi stack export` of the stack as it is before the change. With it, a policy
 * that the change modifies is compared with the live policy it replaces (the engine gives a
 * policy pack only the new inputs of a changed resource, not its id).
 */
export const REVIEW_BASELINE_ENV = 'EDGEGUARD_REVIEW_BASELINE';
/** A file the pack writes its review to, as JSON ({@link PackOutput}), after each policy. */
export const REVIEW_OUTPUT_ENV = 'EDGEGUARD_REVIEW_OUTPUT';

/** Lines listed in a violation message. */
const LINES_IN_MESSAGE = 10;

/** A resource the review could not judge, and why. */
export interface Unjudged {
  urn: string;
  name: string;
  /** Its kind. */
  resource: 'CspPolicy' | 'PoolNotificationMigration' | 'HealthNotification';
  reason: string;
}

/** One violation the pack reported. */
export interface PackViolation {
  policy: string;
  /** The resource, or none for the stack as a whole. */
  urn?: string;
  message: string;
}

/** What the pack writes to {@link REVIEW_OUTPUT_ENV}. */
export interface PackOutput {
  /** Why the review could not be done; absent when it was. */
  error?: string;
  review?: ReviewResult;
  unjudged: Unjudged[];
  violations: PackViolation[];
}

/** The two kinds of detected item the CSP policies judge, as the review's data names them. */
type Kind = 'scripts' | 'connections';

/** The configuration key of each kind's accepted items. */
const ACCEPTED_KEY = { scripts: 'acceptedScripts', connections: 'acceptedConnections' } as const;

/** An accepted script or connection of the pack configuration: its URL or a URL prefix, and why. */
type AcceptedItem = { url: string; reason: string } | { prefix: string; reason: string };

/**
 * The review's plan, with the API client, undici and zod, loaded once the engine has configured
 * the pack ({@link warmReview}) or at the first analysis, not before the pack serves: the engine
 * waits for the pack to serve before it runs the program, and these modules cost about 0.15 s of
 * CPU to load (bench/RESULTS.md, issue 20). Node loads them once and returns them from its cache.
 */
function reviewModules(): {
  plan: typeof plan;
  readAhead: typeof readAhead;
  weaknesses: typeof weaknesses;
  z: typeof zod.z;
} {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded after the pack serves, as said above */
  return {
    plan: require('./plan') as typeof plan,
    readAhead: require('./read-ahead') as typeof readAhead,
    weaknesses: require('./weaknesses') as typeof weaknesses,
    z: (require('zod') as typeof zod).z,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** The client of the stack's `edgeguard:*` settings, else the environment's. */
function packClient() {
  return clientLayer().clientFrom({ config: (key) => stackConfigValue(`edgeguard:${key}`) });
}

/** The listings read ahead from the previous state, once the engine has configured the pack. */
let readingAhead: readAhead.ReadAhead | undefined;

/**
 * Once the engine has configured the pack, while it runs the program: loads the review's modules
 * ({@link reviewModules}), and, when the previous state is given ({@link REVIEW_BASELINE_ENV}),
 * starts reading the detected lists of the zones and hosts its CSP policies name
 * (`./read-ahead.ts`). Without settings to read with, or a previous state to read, nothing is read
 * ahead: the review reads at the analysis, and says what is missing.
 */
export function warmReview(): void {
  const modules = reviewModules();
  const state = previousState();
  if ('reason' in state || readingAhead !== undefined) return;
  const targets = modules.readAhead.readAheadTargets(state.exported);
  if (targets.size === 0) return;
  let client;
  try {
    client = packClient();
  } catch {
    return;
  }
  readingAhead = new modules.readAhead.ReadAhead(client, targets, modules.plan.REVIEW_PER_PAGE).start();
  const reading = readingAhead;
  process.once('exit', () => reading.dispose());
}

/** The JSON schema the engine checks the configuration of a CSP policy of `kind` against. */
function acceptedConfigSchema(kind: Kind): PolicyConfigSchema {
  const noun = kind === 'scripts' ? 'Script' : 'Connection';
  return {
    properties: {
      [ACCEPTED_KEY[kind]]: {
        type: 'array',
        description: `${noun} URLs ({"url"}) or URL prefixes ({"prefix"}) the team accepts here, each with a "reason".`,
        items: {
          type: 'object',
          properties: {
            url: { type: 'string', minLength: 1 },
            prefix: { type: 'string', minLength: 1 },
            reason: { type: 'string', minLength: 1 },
          },
          required: ['reason'],
          minProperties: 2,
          maxProperties: 2,
          additionalProperties: false,
        },
      },
    },
  };
}

/** The items of `kind` a policy's configuration accepts. */
function acceptanceOf(args: StackValidationArgs, kind: Kind): Acceptance {
  const { z } = reviewModules();
  const item = z.union([
    z.object({ url: z.string().min(1), reason: z.string().min(1) }).strict(),
    z.object({ prefix: z.string().min(1), reason: z.string().min(1) }).strict(),
  ]);
  const config = z.object({ [ACCEPTED_KEY[kind]]: z.array(item).default([]) }).parse(args.getConfig()) as Record<
    string,
    AcceptedItem[]
  >;
  const entries = config[ACCEPTED_KEY[kind]] ?? [];
  return (url) => entries.find((entry) => ('url' in entry ? url === entry.url : url.startsWith(entry.prefix)))?.reason;
}

// ---- The stack as the review reads it ----

/** `read(props)`, or why it cannot be known yet (a value computed during the update). */
function known<T>(read: () => T): T | { unknown: string } {
  try {
    return read();
  } catch (error) {
    // @pulumi/policy declares no type for UnknownValueError, so the check does not narrow.
    if (error instanceof UnknownValueError) return { unknown: (error as Error).message };
    throw error;
  }
}

function isUnknown(value: unknown): value is { unknown: string } {
  return typeof value === 'object' && value !== null && 'unknown' in value;
}

/** The last previous state read, by its file: the read ahead and the analysis both need it. */
let previousRead: { file: string; state: { exported: unknown } | { reason: string } } | undefined;

/** The `pulumi stack export` of {@link REVIEW_BASELINE_ENV} (read once per file), or why it could not be read. */
function previousState(): { exported: unknown } | { reason: string } {
  const file = process.env[REVIEW_BASELINE_ENV];
  if (file === undefined || file === '')
    return {
      reason: `the previous state is not known (the engine gives a policy pack only the new inputs of a changed resource); set ${REVIEW_BASELINE_ENV} to a file of \`pulumi stack export\` to compare with the live policy, as edgeguard-review does`,
    };
  if (previousRead?.file !== file) {
    let state: { exported: unknown } | { reason: string };
    try {
      state = { exported: JSON.parse(fs.readFileSync(file, 'utf8')) as unknown };
    } catch (error) {
      state = { reason: `${REVIEW_BASELINE_ENV} (${file}) could not be read: ${(error as Error).message}` };
    }
    previousRead = { file, state };
  }
  return previousRead.state;
}

/** The policy ids by URN of the previous state, or why it could not be read. */
function baselineIds(): Map<string, string> | string {
  const state = previousState();
  if ('reason' in state) return state.reason;
  const ids = new Map<string, string>();
  const resources = (state.exported as { deployment?: { resources?: unknown } })?.deployment?.resources;
  for (const resource of Array.isArray(resources) ? resources : []) {
    const { urn, outputs } = (resource ?? {}) as { urn?: unknown; outputs?: { policyId?: unknown } };
    const id = outputs?.policyId;
    if (typeof urn === 'string' && typeof id === 'string') ids.set(urn, id);
  }
  return ids;
}

/** What the review needs from the stack's resources, and those it cannot judge. */
export function reviewInputOf(resources: readonly PolicyResource[]): { input: ReviewInput; unjudged: Unjudged[] } {
  const policies: PolicyUnderReview[] = [];
  const migrations: MigrationUnderReview[] = [];
  const notifications: NotificationUnderReview[] = [];
  const unjudged: Unjudged[] = [];
  const unknownUntilUpdate = (resource: PolicyResource, kind: Unjudged['resource'], what: string) =>
    unjudged.push({
      urn: resource.urn,
      name: resource.name,
      resource: kind,
      reason: `not known until the update: ${what}`,
    });
  let baseline: Map<string, string> | string | undefined;

  for (const resource of resources) {
    const props = resource.props;
    // By kind, not by a type token made with the resource classes' module: that loads all of
    // @pulumi/pulumi, which the pack's start spares (./pack-start.ts).
    const kind = resourceOf(resource.type);
    if (kind === 'CspPolicy') {
      const read = known(() => ({
        zoneId: String(props.zoneId).toLowerCase(),
        policy: {
          action: String(props.action),
          enabled: props.enabled !== false,
          expression: String(props.expression),
          value: String(props.value),
        },
        policyId: typeof props.policyId === 'string' && props.policyId !== '' ? props.policyId : undefined,
      }));
      if (isUnknown(read)) {
        unknownUntilUpdate(resource, 'CspPolicy', read.unknown);
        continue;
      }
      let replaces: PolicyUnderReview['replaces'];
      if (read.policyId !== undefined) replaces = { id: read.policyId };
      else {
        baseline ??= baselineIds();
        if (typeof baseline === 'string') replaces = { unknown: baseline };
        else {
          const id = baseline.get(resource.urn);
          replaces = id === undefined ? 'none' : { id };
        }
      }
      policies.push({ key: resource.urn, name: resource.name, zoneId: read.zoneId, policy: read.policy, replaces });
    } else if (kind === 'PoolNotificationMigration') {
      const accountId = known(() => String(props.accountId).toLowerCase());
      if (isUnknown(accountId)) {
        unknownUntilUpdate(resource, 'PoolNotificationMigration', accountId.unknown);
        continue;
      }
      migrations.push({ key: resource.urn, name: resource.name, accountId });
    } else if (kind === 'HealthNotification') {
      const read = known(() => ({
        accountId: String(props.accountId).toLowerCase(),
        poolIds: (props.poolIds as unknown[]).map((id) => String(id).toLowerCase()),
        enabled: props.enabled !== false,
      }));
      if (isUnknown(read)) {
        unknownUntilUpdate(resource, 'HealthNotification', read.unknown);
        continue;
      }
      notifications.push(read);
    }
  }
  // Every CSP policy the stack manages before the change, the deleted ones too: the zone's other
  // live policies stay, headers beside the stack's (./impact.ts).
  if (policies.length > 0) baseline ??= baselineIds();
  const managed = typeof baseline === 'object' ? { managedPolicyIds: [...baseline.values()] } : {};
  return { input: { policies, ...managed, migrations, notifications }, unjudged };
}

// ---- One read of the service per analysis ----

interface Analysis {
  key: string;
  input: ReviewInput;
  unjudged: Unjudged[];
  review?: ReviewResult;
  error?: string;
  violations: PackViolation[];
}

let current: { key: string; analysis: Promise<Analysis> } | undefined;

/** Why the review could not be done, as a person should read it. */
function reasonOf(error: unknown): string {
  clientLayer().withSettingHint(error);
  const message = error instanceof Error ? error.message : String(error);
  return message;
}

/**
 * The analysis of `resources`: read once per set of resources, whichever policy asks first. The
 * blocked scripts the team accepts are those of `csp-blocks-detected-scripts`, which runs first.
 */
function analysisOf(resources: readonly PolicyResource[], acceptBlocked?: Acceptance): Promise<Analysis> {
  const { input, unjudged } = reviewInputOf(resources);
  const key = JSON.stringify(input);
  if (current?.key === key) return current.analysis;
  const analysis = (async (): Promise<Analysis> => {
    const base = { key, input, unjudged, violations: [] };
    if (input.policies.length === 0 && input.migrations.length === 0) return { ...base, review: emptyReview() };
    try {
      const review = await reviewModules().plan.reviewService(packClient(), input, {
        ...(acceptBlocked ? { acceptBlocked } : {}),
        ...(readingAhead !== undefined ? { readAhead: readingAhead } : {}),
      });
      return { ...base, review };
    } catch (error) {
      return { ...base, error: reasonOf(error) };
    } finally {
      // Used by the first analysis alone: its requests are counted once.
      readingAhead?.dispose();
      readingAhead = undefined;
    }
  })();
  current = { key, analysis };
  return analysis;
}

function emptyReview(): ReviewResult {
  return { policies: [], pools: [], requests: { made: 0, bound: 0, plan: 'nothing to read' } };
}

function writeOutput(analysis: Analysis): void {
  const file = process.env[REVIEW_OUTPUT_ENV];
  if (file === undefined || file === '') return;
  const output: PackOutput = {
    ...(analysis.error !== undefined ? { error: analysis.error } : {}),
    ...(analysis.review !== undefined ? { review: analysis.review } : {}),
    unjudged: analysis.unjudged,
    violations: analysis.violations,
  };
  fs.writeFileSync(file, JSON.stringify(output, null, 2));
}

/**
 * A stack validation over the shared analysis: reports the failure to read the data as a
 * violation (a mandatory policy then fails: it never passes silently), else runs `judge`.
 */
function stackPolicy(
  name: string,
  judge: (analysis: Analysis, report: (message: string, urn?: string) => void, args: StackValidationArgs) => void,
  options: { concerns: 'csp' | 'pools'; acceptsBlocked?: boolean },
): StackValidationPolicy['validateStack'] {
  return async (args: StackValidationArgs, reportViolation: ReportViolation) => {
    const analysis = await analysisOf(
      args.resources,
      options.acceptsBlocked ? acceptanceOf(args, 'scripts') : undefined,
    );
    const report = (message: string, urn?: string) => {
      analysis.violations.push({ policy: name, ...(urn !== undefined ? { urn } : {}), message });
      reportViolation(message, urn);
    };
    const csp = options.concerns === 'csp';
    const unjudged = analysis.unjudged.filter((resource) => (resource.resource === 'CspPolicy') === csp);
    // The pools' alerts matter only to a migration; a notification alone is judged by nothing.
    const applies = csp
      ? analysis.input.policies.length > 0 || unjudged.length > 0
      : analysis.input.migrations.length > 0 ||
        unjudged.some((resource) => resource.resource === 'PoolNotificationMigration');
    try {
      // Nothing of this policy's kind in the stack: nothing to read for it, nothing to say.
      if (!applies) return;
      if (analysis.error !== undefined) {
        report(`The EdgeGuard review could not be done: ${analysis.error}`);
        return;
      }
      for (const resource of unjudged) report(`${resource.name} cannot be judged: ${resource.reason}`, resource.urn);
      judge(analysis, report, args);
    } finally {
      writeOutput(analysis);
    }
  };
}

// ---- Messages ----

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Where a line applies, in words: the pages, or the first page and what it stands for. */
export function pagesText(line: DetectedLine): string {
  const pages = line.pages.join(', ');
  if (line.pagesBasis === 'all') return `on ${pages}`;
  if (line.pagesBasis === 'any') return `on every page it was seen on (first: ${pages})`;
  return `on its first page ${pages} (its other pages not read)`;
}

/** The browsers as a reviewer knows them. */
const BROWSER_NAMES: Record<Browser, string> = { chromium: 'Chromium', firefox: 'Firefox' };

/**
 * A CSP header of a host in words: `this policy` (the one named `self`), another policy of the
 * stack by its name, or a live policy the stack does not manage by its id.
 */
export function headerName(ref: HeaderRef, self?: string): string {
  if ('live' in ref) return `the live policy ${ref.live}`;
  return ref.stack === self ? 'this policy' : `"${ref.stack}"`;
}

/**
 * What a line says of the browsers and the host's headers, as notes: the browser that blocks it
 * as mixed content, the headers that block or report it, the one browser its list's verdict holds
 * in, the upgrade of its URL. `self` is the name of the policy whose line it is.
 */
export function verdictNotes(line: DetectedLine, self?: string): string[] {
  const names = (refs: readonly HeaderRef[]) => refs.map((ref) => headerName(ref, self)).join(' and ');
  const others = BROWSERS.filter((browser) => browser !== line.only).map((browser) => BROWSER_NAMES[browser]);
  return [
    ...(line.mixedContent ? ['blocked by the browser as mixed content'] : []),
    ...(line.blockedBy !== undefined ? [`blocked by ${names(line.blockedBy)}`] : []),
    ...(line.reportedBy !== undefined ? [`reported by ${names(line.reportedBy)}`] : []),
    ...(line.only !== undefined ? [`in ${BROWSER_NAMES[line.only]} only, not in ${others.join(' or ')}`] : []),
    ...(line.upgraded
      ? [`upgraded to ${line.url.startsWith('ws:') ? 'wss:' : 'https:'} by upgrade-insecure-requests`]
      : []),
  ];
}

/**
 * One script or connection as a message line: URL, pages, last seen, status, why malicious, and
 * what the host's headers and the browsers do with it ({@link verdictNotes}, `self` being the name
 * of the policy whose line it is).
 */
export function lineText(line: DetectedLine, self?: string): string {
  const pages = pagesText(line);
  const notes = [
    `last seen ${line.lastSeenAt}`,
    ...(line.status !== 'active' ? [line.status] : []),
    ...(line.maliciousBecause !== undefined ? [`malicious: ${line.maliciousBecause}`] : []),
    ...(line.accepted !== undefined ? [`accepted: ${line.accepted}`] : []),
    ...verdictNotes(line, self),
  ];
  return `${line.url} ${pages} (${notes.join('; ')})`;
}

function listed(lines: DetectedLine[], total: number, self?: string): string {
  const shown = lines.slice(0, LINES_IN_MESSAGE);
  const more = total - shown.length;
  return [...shown.map((line) => `  - ${lineText(line, self)}`), ...(more > 0 ? [`  - and ${more} more`] : [])].join(
    '\n',
  );
}

function describePolicy(review: PolicyReview): string {
  const state = review.enabled ? review.action : `${review.action}, disabled`;
  return `CspPolicy "${review.name}" (${state} on ${review.hostname ?? 'an unreadable host'})`;
}

/** The singular noun of a kind. */
const NOUN: Record<Kind, string> = { scripts: 'script', connections: 'connection' };

/** What a policy does to one kind of detected item, in sentences. */
function kindSummary(review: PolicyReview, kind: Kind): string[] {
  const impact: DetectedImpact = review[kind];
  const noun = NOUN[kind];
  const parts = [`${kind === 'scripts' ? 'Scripts' : 'Connections'} detected on ${review.hostname}: ${impact.judged}.`];
  const list = (heading: string, sample: DetectedSample) =>
    `${heading}${sample.count > 0 ? `:\n${listed(sample.lines, sample.count, review.name)}` : '.'}`;
  // What the host's other headers and the browser block, whatever this policy says.
  const onHost = [
    ...(impact.blockedByOthers.count > 0
      ? [
          list(
            `Other policies of the host block ${plural(impact.blockedByOthers.count, noun)} this one does not`,
            impact.blockedByOthers,
          ),
        ]
      : []),
    ...(impact.mixedContent.count > 0
      ? [
          list(
            `Blocked by the browser as mixed content whatever the policies say (http: or ws: from an https: page, not upgraded; neither allowed nor a policy's block): ${plural(impact.mixedContent.count, noun)}`,
            impact.mixedContent,
          ),
        ]
      : []),
  ];
  if (impact.governedBy === null) {
    const directives = GOVERNING_DIRECTIVES[kind === 'scripts' ? 'script' : 'connection'].join(', ');
    return [...parts, `The policy has none of ${directives}: it restricts no ${noun}.`, ...onHost];
  }
  const verb = review.effect === 'report' ? 'Reports' : 'Blocks';
  if (review.effect !== 'none') parts.push(list(`${verb} ${plural(impact.notAllowed.count, noun)}`, impact.notAllowed));
  const newly = [
    ['Newly blocks', impact.newlyBlocked],
    ['Newly allows', impact.newlyAllowed],
  ] as const;
  for (const [label, sample] of newly) {
    if (sample !== null && sample.count > 0) parts.push(list(`${label} ${plural(sample.count, noun)}`, sample));
  }
  parts.push(...onHost);
  if (impact.maliciousAllowed.count > 0)
    parts.push(list(`Allows ${plural(impact.maliciousAllowed.count, `malicious ${noun}`)}`, impact.maliciousAllowed));
  if (impact.unusedSources.length > 0)
    parts.push(`Sources that allow no detected ${noun} (candidates for removal): ${impact.unusedSources.join(', ')}.`);
  if (impact.judgedOnFirstPageOnly > 0)
    parts.push(`${plural(impact.judgedOnFirstPageOnly, noun)} judged on its first page only.`);
  return parts;
}

/** The summary of item 1 of issues 9 and 20 for one policy: what `csp-change-impact` reports. */
export function impactSummary(review: PolicyReview): string {
  const parts: string[] = [];
  const baseline = review.baseline;
  if (baseline === 'none') parts.push(`${describePolicy(review)} is created.`);
  else if ('unknown' in baseline) parts.push(`${describePolicy(review)} is created or changed; ${baseline.unknown}.`);
  else {
    parts.push(`${describePolicy(review)} changes the live policy ${baseline.id}.`);
    if (baseline.hostname !== review.hostname) parts.push(`Host: ${baseline.hostname} -> ${review.hostname}.`);
    if (baseline.effect !== review.effect) parts.push(`Effect: ${baseline.effect} -> ${review.effect}.`);
  }
  if (review.problem !== undefined) return [...parts, `It cannot be judged: ${review.problem}.`].join('\n');
  if (review.sourcesAdded !== null && review.sourcesAdded.length > 0)
    parts.push(`Sources added: ${review.sourcesAdded.join(', ')}.`);
  if (review.sourcesRemoved !== null && review.sourcesRemoved.length > 0)
    parts.push(`Sources removed: ${review.sourcesRemoved.join(', ')}.`);
  const headers = headersText(review);
  if (headers !== undefined) parts.push(headers);
  parts.push(...kindSummary(review, 'scripts'), ...kindSummary(review, 'connections'));
  return parts.join('\n');
}

/**
 * What the verdicts of a policy come from, when it is not its header alone: every CSP header of
 * its host after the change (a fetch loads only if each enforced one allows it), and why some may
 * be missing.
 */
export function headersText(review: PolicyReview): string | undefined {
  const sentences: string[] = [];
  if (review.hostHeaders.length > 1 || (review.hostHeaders.length === 1 && review.effect === 'none')) {
    const headers = review.hostHeaders.map(
      (header) =>
        `${headerName(header.policy, review.name)} (${header.effect === 'block' ? 'enforced' : 'report-only'})`,
    );
    sentences.push(
      `Judged with every CSP header of ${review.hostname} after the change, in Chromium and Firefox: ${headers.join(', ')}; a fetch loads only if every enforced one allows it.`,
    );
  }
  if (review.headersUnknown !== undefined)
    sentences.push(`Live policies of the host are left out of the judgement: ${review.headersUnknown}.`);
  return sentences.length > 0 ? sentences.join(' ') : undefined;
}

// ---- The policies ----

/** What a kind's lines are in the policies' words. */
const WHAT: Record<Kind, { malicious: string; directive: string }> = {
  scripts: { malicious: 'classified malicious (js_integrity_score below 10)', directive: 'script-src' },
  connections: {
    malicious: 'reported malicious (its domain or URL, or their categories)',
    directive: 'connect-src',
  },
};

/** `csp-blocks-detected-<kind>`: an allow policy must not block what runs on its host. */
function blocksDetected(kind: Kind): StackValidationPolicy {
  const name = kind === 'scripts' ? POLICY_NAMES.blocks : POLICY_NAMES.blocksConnections;
  const noun = NOUN[kind];
  return {
    name,
    description: `An allow CSP policy must not block a ${noun} page security detected on its host, in Chromium or Firefox, judged with every CSP header of the host, unless the ${noun} is malicious or accepted.`,
    enforcementLevel: 'mandatory',
    configSchema: acceptedConfigSchema(kind),
    validateStack: stackPolicy(
      name,
      (analysis, report, args) => {
        for (const review of analysis.review?.policies ?? []) {
          const impact = review[kind];
          // The scripts' acceptance was applied while judging (this policy runs first); the
          // connections' is applied now, to the lines kept for it.
          const count = kind === 'scripts' ? impact.violations.blocks : acceptBlocked(impact, acceptanceOf(args, kind));
          if (count === 0) continue;
          const lines = impact.notAllowed.lines.filter((line) => !line.malicious && line.accepted === undefined);
          const them = count === 1 ? 'it' : 'them';
          // A fetch loads only if every enforced header allows it: allowing it here alone is not enough.
          const alsoElsewhere = lines.some((line) =>
            (line.blockedBy ?? []).some((ref) => headerName(ref, review.name) !== 'this policy'),
          )
            ? ' Where another policy of the host blocks it too, it loads only once that one allows it as well.'
            : '';
          report(
            `${describePolicy(review)} would block ${plural(count, `detected ${noun}`)} that ${count === 1 ? 'is' : 'are'} neither malicious nor accepted:\n${listed(lines, count, review.name)}\nAllow ${them} in the policy's value (${WHAT[kind].directive}), or accept ${them} in this policy's configuration (${ACCEPTED_KEY[kind]}, with a reason).${alsoElsewhere}`,
            review.key,
          );
        }
      },
      { concerns: 'csp', acceptsBlocked: kind === 'scripts' },
    ),
  };
}

/** `csp-allows-malicious-<kind>`: a policy must not allow a malicious item detected on its host. */
function allowsMalicious(kind: Kind): StackValidationPolicy {
  const name = kind === 'scripts' ? POLICY_NAMES.malicious : POLICY_NAMES.maliciousConnection;
  const noun = NOUN[kind];
  return {
    name,
    description: `A CSP policy must not allow a ${noun} page security detected on its host that is ${WHAT[kind].malicious} and that loads there (no CSP header of the host blocks it) in Chromium or Firefox.`,
    enforcementLevel: 'mandatory',
    configSchema: acceptedConfigSchema(kind),
    validateStack: stackPolicy(
      name,
      (analysis, report, args) => {
        const accept = acceptanceOf(args, kind);
        for (const review of analysis.review?.policies ?? []) {
          const impact = review[kind];
          const count = acceptMalicious(impact, accept);
          if (count === 0) continue;
          const lines = impact.maliciousAllowed.lines.filter((line) => line.accepted === undefined);
          const them = count === 1 ? 'it' : 'them';
          report(
            `${describePolicy(review)} allows ${plural(count, noun)} ${WHAT[kind].malicious}, and no CSP header of its host blocks ${them}:\n${listed(lines, count, review.name)}\nRemove the source that allows ${them}, or accept ${them} in this policy's configuration (${ACCEPTED_KEY[kind]}, with a reason).`,
            review.key,
          );
        }
      },
      { concerns: 'csp' },
    ),
  };
}

const changeImpact: StackValidationPolicy = {
  name: POLICY_NAMES.impact,
  description:
    'What each created or changed CSP policy does to the scripts and connections page security detected on its host.',
  enforcementLevel: 'advisory',
  validateStack: stackPolicy(
    POLICY_NAMES.impact,
    (analysis, report) => {
      for (const review of analysis.review?.policies ?? []) {
        if (reviewModules().plan.isCreatedOrChanged(review)) report(impactSummary(review), review.key);
      }
    },
    { concerns: 'csp' },
  ),
};

const cspWeaknesses: StackValidationPolicy = {
  name: POLICY_NAMES.weaknesses,
  description:
    "What each CSP policy lets in that injected markup can use to run code past it, of high and medium severity, as Google's CSP Evaluator finds it (hosts serving JSONP endpoints or AngularJS, 'unsafe-inline', 'unsafe-eval', a lone * or scheme, object-src missing), less advice the service cannot follow.",
  enforcementLevel: 'advisory',
  validateStack: stackPolicy(
    POLICY_NAMES.weaknesses,
    (analysis, report) => {
      const { policiesWeaknesses, weaknessText } = reviewModules().weaknesses;
      for (const { policy, weaknesses: found } of policiesWeaknesses(analysis.review?.policies ?? [])) {
        if (found.length === 0) continue;
        report(
          `${describePolicy(policy)} has ${plural(found.length, 'weakness', 'weaknesses')}:\n${found.map((weakness) => `  - ${weaknessText(weakness)}`).join('\n')}`,
          policy.key,
        );
      }
    },
    { concerns: 'csp' },
  ),
};

const poolsLeftWithoutAlerts: StackValidationPolicy = {
  name: POLICY_NAMES.pools,
  description:
    "A PoolNotificationMigration removes the pools' legacy alert e-mails: every pool of its account should be covered by a HealthNotification of the stack.",
  enforcementLevel: 'advisory',
  validateStack: stackPolicy(
    POLICY_NAMES.pools,
    (analysis, report) => {
      for (const coverage of analysis.review?.pools ?? []) {
        if (coverage.uncovered.count === 0) continue;
        const more = coverage.uncovered.count - coverage.uncovered.names.length;
        report(
          `PoolNotificationMigration "${coverage.name}" removes the legacy alert e-mails of account ${coverage.accountId}, but ${coverage.uncovered.count} of its ${plural(coverage.pools, 'pool')} ${coverage.uncovered.count === 1 ? 'is' : 'are'} covered by no enabled HealthNotification of this stack: ${coverage.uncovered.names.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`,
          coverage.key,
        );
      }
    },
    { concerns: 'pools' },
  ),
};

/** The pack's policies, in the order they run: the blocked-scripts policy first (see {@link analysisOf}). */
export const PACK_POLICIES: StackValidationPolicy[] = [
  blocksDetected('scripts'),
  blocksDetected('connections'),
  allowsMalicious('scripts'),
  allowsMalicious('connections'),
  changeImpact,
  cspWeaknesses,
  poolsLeftWithoutAlerts,
];
