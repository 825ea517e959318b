import type {
  ReportViolation,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from '@pulumi/policy';
import { GOVERNING_DIRECTIVES } from '../../rules/csp-match';
import { MALICIOUS_SCRIPT_RULE } from '../../rules/malicious';
import { findingText, impactText, listText, policyText, text } from '../format/review-text';
import { acceptBlocked, acceptMalicious } from '../impact/evaluate';
import { isCreatedOrChanged } from '../impact/model';
import { analysisOf, reviewModules, writeOutput, type Analysis, type Declared } from '../review/pack-analysis';
import { ACCEPTED_KEY, acceptanceOf, acceptedConfigSchema } from '../review/pack-config';
import type { Unjudged } from '../review/pack-input';
import type { InventoryReview } from '../payment/review';
import { resourceOf } from '../stack/export';
import {
  changedFinding,
  cspDifferenceFinding,
  headersChangedFinding,
  maliciousFinding,
  unauthorizedFinding,
  type Finding,
  type PhraseList,
} from '../payment/statements';
import {
  headerName,
  itemList,
  KIND_WORDS,
  notDonePhrase,
  plural,
  poolsPhrase,
  unjudgedPhrase,
  WEAKNESSES_ABOUT,
  type Kind,
} from '../impact/statements';

/**
 * The policies of EdgeGuard's policy pack (`./pack.ts` serves them; `policy-pack/` holds the
 * executable the engine runs). Those that report ({@link PACK_POLICIES}) are stack policies: they
 * see every resource of the stack at once, so the service is read once for all of them
 * (`./pack-analysis.ts`), by the first that runs. Beside them, one resource policy reports nothing
 * and hears the resources as the program declares them, for the review's read ahead
 * ({@link hearingPolicy}).
 *
 * Settings come from the pack's environment (`EDGEGUARD_*`, the settings table's variables):
 * `edgeguard-review` sets them from the stack's `edgeguard:*` configuration (`packSettingsEnv` of
 * `../review/review-stack.ts`); a pack run by hand reads the caller's. Two more variables serve
 * `edgeguard-review`, and anyone who wants the same: `REVIEW_BASELINE_ENV`
 * (`./pack-input.ts`) and `REVIEW_OUTPUT_ENV` (`./pack-analysis.ts`).
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
  paymentUnauthorized: 'payment-script-unauthorized',
  paymentChanged: 'payment-script-changed',
  paymentMalicious: 'payment-script-malicious',
  paymentCsp: 'payment-csp-differs-from-inventory',
  paymentHeaders: 'payment-headers-changed',
} as const;

/**
 * What each kind of policy is about: the resources it reports when they cannot be judged. A CSP
 * policy's concern is the stack's CSP policies, a pools policy's its migrations and notifications,
 * a payment policy's its script inventories.
 */
const CONCERNS: Readonly<Record<'csp' | 'pools' | 'payment', ReadonlyArray<Unjudged['resource']>>> = {
  csp: ['CspPolicy'],
  pools: ['PoolNotificationMigration', 'HealthNotification'],
  payment: ['ScriptInventory'],
};

/**
 * A stack validation over the shared analysis: reports the failure to read the data as a
 * violation (a mandatory policy then fails: it never passes silently), else runs `judge`.
 */
function stackPolicy(
  name: string,
  judge: (analysis: Analysis, report: (message: string, urn?: string) => void, args: StackValidationArgs) => void,
  options: { concerns: keyof typeof CONCERNS; acceptsBlocked?: boolean },
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
    const unjudged = analysis.unjudged.filter((resource) => CONCERNS[options.concerns].includes(resource.resource));
    const applies = {
      csp: analysis.input.policies.length > 0 || unjudged.length > 0,
      // The pools' alerts matter only to a migration; a notification alone is judged by nothing.
      pools:
        analysis.input.migrations.length > 0 ||
        unjudged.some((resource) => resource.resource === 'PoolNotificationMigration'),
      payment: (analysis.input.inventories ?? []).length > 0 || unjudged.length > 0,
    }[options.concerns];
    try {
      // Nothing of this policy's kind in the stack: nothing to read for it, nothing to say.
      if (!applies) return;
      if (analysis.error !== undefined) {
        report(text(notDonePhrase(analysis.error)));
        return;
      }
      for (const resource of unjudged) report(text(unjudgedPhrase(resource)), resource.urn);
      judge(analysis, report, args);
    } finally {
      writeOutput(analysis);
    }
  };
}

// ---- The policies ----

/** What a CSP policy's message ends with: how to make its items no violation, `them` being the items. */
function remedy(kind: Kind, them: string, fix: string): string {
  return `${fix}, or accept ${them} in this policy's configuration (${ACCEPTED_KEY[kind]}, with a reason).`;
}

/** `csp-blocks-detected-<kind>`: an allow policy must not block what runs on its host. */
function blocksDetected(kind: Kind): StackValidationPolicy {
  const name = kind === 'scripts' ? POLICY_NAMES.blocks : POLICY_NAMES.blocksConnections;
  const { noun, fetch } = KIND_WORDS[kind];
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
          const title = `${policyText(review)} would block ${plural(count, `detected ${noun}`)} that ${count === 1 ? 'is' : 'are'} neither malicious nor accepted`;
          // A fetch loads only if every enforced header allows it: allowing it here alone is not enough.
          const alsoElsewhere = lines.some((line) =>
            (line.blockedBy ?? []).some((ref) => headerName(ref, review.name) !== 'this policy'),
          )
            ? ' Where another policy of the host blocks it too, it loads only once that one allows it as well.'
            : '';
          report(
            `${listText(itemList([title], { count, lines }, review.name))}\n${remedy(kind, them, `Allow ${them} in the policy's value (${GOVERNING_DIRECTIVES[fetch][0]})`)}${alsoElsewhere}`,
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
  const { noun, malicious } = KIND_WORDS[kind];
  return {
    name,
    description: `A CSP policy must not allow a ${noun} page security detected on its host that is ${malicious} and that loads there (no CSP header of the host blocks it) in Chromium or Firefox.`,
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
          const title = `${policyText(review)} allows ${plural(count, noun)} ${malicious}, and no CSP header of its host blocks ${them}`;
          report(
            `${listText(itemList([title], { count, lines }, review.name))}\n${remedy(kind, them, `Remove the source that allows ${them}`)}`,
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
    "What each created or changed CSP policy does to the scripts and connections page security detected on its host, and which policies' hosts were not read (the review's scope change).",
  enforcementLevel: 'advisory',
  validateStack: stackPolicy(
    POLICY_NAMES.impact,
    (analysis, report) => {
      for (const review of analysis.review?.policies ?? []) {
        // A policy whose host was not read (the scope change) is said so, so no one takes silence for a pass.
        if (isCreatedOrChanged(review) || review.notRead !== undefined) report(impactText(review), review.key);
      }
    },
    { concerns: 'csp' },
  ),
};

const cspWeaknesses: StackValidationPolicy = {
  name: POLICY_NAMES.weaknesses,
  description: text(WEAKNESSES_ABOUT),
  enforcementLevel: 'advisory',
  validateStack: stackPolicy(
    POLICY_NAMES.weaknesses,
    (analysis, report) => {
      const { policiesWeaknesses, weaknessText } = reviewModules().weaknesses;
      for (const { policy, weaknesses: found } of policiesWeaknesses(analysis.review?.policies ?? [])) {
        if (found.length === 0) continue;
        report(
          `${policyText(policy)} has ${plural(found.length, 'weakness', 'weaknesses')}:\n${found.map((weakness) => `  - ${weaknessText(weakness)}`).join('\n')}`,
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
        if (coverage.uncovered.count > 0) report(text(poolsPhrase(coverage)), coverage.key);
      }
    },
    { concerns: 'pools' },
  ),
};

/**
 * A payment policy (issue 25, item 3): for each script inventory of the stack, the violation
 * `finding` states, if any, as the report shows it (`./payment-statements.ts`).
 */
function paymentPolicy(
  name: string,
  enforcementLevel: 'mandatory' | 'advisory',
  description: string,
  finding: (review: InventoryReview) => { list: Finding['list'] | PhraseList; fix: Finding['fix'] } | undefined,
): StackValidationPolicy {
  return {
    name,
    description,
    enforcementLevel,
    validateStack: stackPolicy(
      name,
      (analysis, report) => {
        for (const review of analysis.review?.inventories ?? []) {
          const found = finding(review);
          if (found !== undefined) report(findingText(found), review.key);
        }
      },
      { concerns: 'payment' },
    ),
  };
}

const paymentScriptUnauthorized = paymentPolicy(
  POLICY_NAMES.paymentUnauthorized,
  'mandatory',
  "Every script page security detects on a ScriptInventory's payment pages must be authorized by an entry of the inventory, with its justification (PCI DSS 4.0 requirement 6.4.3).",
  unauthorizedFinding,
);

const paymentScriptChanged = paymentPolicy(
  POLICY_NAMES.paymentChanged,
  'mandatory',
  'A script whose ScriptInventory entry pins a hash must still be that version: its live hash is the pinned one, judged against the entries as the change leaves them, so a change that re-pins it passes (PCI DSS 4.0 requirements 6.4.3 and 11.6.1).',
  changedFinding,
);

const paymentScriptMalicious = paymentPolicy(
  POLICY_NAMES.paymentMalicious,
  'mandatory',
  `No entry of a ScriptInventory may authorize a script detected on its pages that is classified malicious (${MALICIOUS_SCRIPT_RULE}) or whose domain or URL page security reports malicious.`,
  maliciousFinding,
);

const paymentCspDiffers = paymentPolicy(
  POLICY_NAMES.paymentCsp,
  'advisory',
  "Each host of a ScriptInventory's pages should have an enabled allow CspPolicy of the stack whose script-src (else default-src) allows exactly what the inventory authorizes (its cspSources): not less, which breaks an authorized script, not more, which lets in one the inventory does not authorize.",
  cspDifferenceFinding,
);

const paymentHeadersChanged = paymentPolicy(
  POLICY_NAMES.paymentHeaders,
  'mandatory',
  "The CSP headers of a ScriptInventory's pages' hosts must be as the stack manages them: no live policy on those hosts that no CspPolicy of the stack manages, and each managed one with the action, expression, value and enabled flag the stack last declared (PCI DSS 4.0 requirement 11.6.1: a change to the CSP can be a sign of tampering). Compared with the stack's state before the change (edgeguard-review gives it).",
  headersChangedFinding,
);

/** The pack's policies, in the order they run: the blocked-scripts policy first (see {@link analysisOf}). */
export const PACK_POLICIES: StackValidationPolicy[] = [
  blocksDetected('scripts'),
  blocksDetected('connections'),
  allowsMalicious('scripts'),
  allowsMalicious('connections'),
  changeImpact,
  cspWeaknesses,
  poolsLeftWithoutAlerts,
  paymentScriptUnauthorized,
  paymentScriptChanged,
  paymentScriptMalicious,
  paymentCspDiffers,
  paymentHeadersChanged,
];

/** The name of the pack's one resource policy, {@link hearingPolicy}'s. */
export const HEARING_POLICY_NAME = 'edgeguard-hears-declarations';

/** What a declared CSP policy's inputs are read for: what the judging ahead compares with the previous state. */
const HEARD_INPUTS = ['zoneId', 'action', 'expression', 'value', 'enabled'] as const;

/** A value the engine does not know yet at a preview (`@pulumi/policy` throws when one is read). */
const UNKNOWN = '<unknown at preview>';

/**
 * The pack's resource policy that reports nothing: `@pulumi/policy` calls its `validateResource`
 * in the engine's `Analyze` of each resource, as the program registers it, long before the stack
 * policies run; it tells `declared` the resource's URN and type token and, for a CSP policy, the
 * inputs the judging ahead compares (a value unknown at the preview as {@link UNKNOWN}: declared
 * otherwise). What `declared` throws is ignored: the review then judges at the analysis.
 */
export function hearingPolicy(declared: Declared): ResourceValidationPolicy {
  return {
    name: HEARING_POLICY_NAME,
    description:
      'Reports nothing: hears the resources the program declares, so that the review judges ahead a zone whose CSP policies the change leaves as they were.',
    enforcementLevel: 'advisory',
    validateResource: ({ urn, type, props }) => {
      try {
        const inputs: Record<string, unknown> = {};
        if (resourceOf(type) === 'CspPolicy')
          for (const key of HEARD_INPUTS) {
            try {
              inputs[key] = (props as Record<string, unknown>)[key];
            } catch {
              inputs[key] = UNKNOWN;
            }
          }
        declared(urn, type, inputs);
      } catch {
        // Not heard: the zone is then not judged ahead, and the review judges it at the analysis.
      }
    },
  };
}
