import { z } from 'zod';
import { scoresShape } from '../client/page-security';
import { headerChangeSchema } from './header-change-schema';
import { INTEGRITIES } from './scripts';

/**
 * The evidence `edgeguard-audit` writes (`--json`), which a GRC tool ingests: one zod schema, the
 * shape's documentation (each field's `description`) and its check in the tests. The shape is
 * stable within a {@link AUDIT_FORMAT_VERSION}: fields may be added, none is removed or changes
 * meaning without a new version. Times are ISO 8601 in UTC, as page security reports them; every
 * object is strict, so a field this version does not define is refused.
 */

/** The value of `format`, by which an ingesting tool recognizes the document. */
export const AUDIT_FORMAT = 'edgeguard-audit';

/** The version of the shape below; a change that is not an addition makes a new one. */
export const AUDIT_FORMAT_VERSION = 1;

const time = (description: string) => z.string().meta({ description: `${description} (ISO 8601, UTC)` });

const scoresSchema = z.object(scoresShape).strict().meta({
  description:
    'The scores page security reports (spec 2.3; 1 to 99, lower is more likely malicious), those the plan reports.',
});

/** An entry of the inventory, as the stack holds it. */
export const auditEntrySchema = z
  .object({
    index: z
      .number()
      .int()
      .min(0)
      .meta({ description: "The entry's position in the inventory's `scripts` (named `scripts[index]`)." }),
    url: z.string().optional().meta({ description: 'The one script it authorizes (a url entry).' }),
    prefix: z
      .string()
      .optional()
      .meta({ description: 'The path under which it authorizes every script (a prefix entry).' }),
    justification: z.string().meta({ description: 'Why the script is on the payment pages (PCI DSS 6.4.3).' }),
    owner: z.string().optional().meta({ description: 'Who answers for it, when given.' }),
    hash: z.string().optional().meta({ description: 'The hash of the version approved (pinned), when given.' }),
  })
  .strict();
export type AuditEntry = z.output<typeof auditEntrySchema>;

const versionSchema = z
  .object({
    hash: z.string().optional().meta({ description: "The version's hash, when the plan reports one." }),
    fetchedAt: time('When page security fetched this version').optional(),
    scores: scoresSchema,
    pinned: z.boolean().meta({ description: 'This is the version the entry pins.' }),
  })
  .strict();
export type AuditVersion = z.output<typeof versionSchema>;

/** One script page security saw on a payment page, judged against the inventory. */
export const auditScriptSchema = z
  .object({
    id: z.string().meta({ description: "The script's id in page security." }),
    url: z.string().meta({ description: 'The script, as page security reports it.' }),
    status: z.string().meta({ description: '`active` or `infrequent` (seen recently, or now and then).' }),
    firstSeenAt: time('When page security first saw the script'),
    lastSeenAt: time('When page security last saw the script'),
    seenOn: z
      .array(z.string())
      .meta({ description: 'The pages of this payment page it was seen on, as page security reports them.' }),
    entry: auditEntrySchema.optional().meta({ description: 'The entry that authorizes it; absent when none does.' }),
    integrity: z.enum(INTEGRITIES).meta({
      description:
        '`unchanged`: its entry pins a hash and the live hash is that one; `changed`: the live hash is another (or none is reported); `unpinned`: its entry pins no hash; `unauthorized`: no entry authorizes it.',
    }),
    hash: z.string().optional().meta({ description: 'The hash of its current (live) version, when reported.' }),
    fetchedAt: time('When its current version was fetched').optional(),
    changedAt: time(
      'When changed and the pinned version is still listed: when the first version after the pinned one was fetched',
    ).optional(),
    versionsSince: z.array(versionSchema).meta({
      description:
        'When changed: the versions since the pinned one, newest first, down to the pinned one when page security still lists it; otherwise empty.',
    }),
    scores: scoresSchema,
    malicious: z.boolean().meta({
      description:
        '`js_integrity_score` below 10: page security classifies it malicious. With `reported`, what makes a script malicious, which fails the audit whatever its integrity.',
    }),
    reported: z
      .object({
        domainMalicious: z.boolean(),
        urlMalicious: z.boolean(),
        urlCategories: z.array(z.string()),
      })
      .strict()
      .meta({ description: "What page security reports of the script's domain and URL." }),
  })
  .strict();
export type AuditScript = z.output<typeof auditScriptSchema>;

/** A CSP header in force on a payment page's host: an enabled policy of the zone whose expression is the host. */
export const auditHeaderSchema = z
  .object({
    policyId: z.string(),
    description: z.string(),
    action: z.string().meta({
      description:
        '`allow` (the header is enforced) or `log` (report only); an action EdgeGuard does not know is kept as the service gave it.',
    }),
    mode: z.enum(['enforced', 'report-only', 'unknown']).meta({
      description:
        'How the browser gets it: `Content-Security-Policy` or `Content-Security-Policy-Report-Only`; `unknown` for an action EdgeGuard does not know (neither enforced nor report-only as far as it can tell).',
    }),
    value: z.string().meta({ description: "The header's value." }),
    managedBy: z
      .object({ name: z.string(), urn: z.string() })
      .strict()
      .optional()
      .meta({ description: "The stack's CspPolicy resource that manages it; absent when the stack manages none." }),
  })
  .strict();
export type AuditHeader = z.output<typeof auditHeaderSchema>;

/** Scripts by integrity, and how many of them are malicious. */
export const auditCountsSchema = z
  .object({
    scripts: z.number().int().min(0),
    unchanged: z.number().int().min(0),
    unpinned: z.number().int().min(0),
    changed: z.number().int().min(0),
    unauthorized: z.number().int().min(0),
    malicious: z.number().int().min(0).meta({
      description:
        'The scripts that are malicious, whatever their integrity (each is also counted under its integrity): `js_integrity_score` below 10, or the domain or URL reported malicious (`malicious`, `reported`). Each fails the audit. A new field of format version 1 (an addition, so the version stays): evidence written before it lacks it.',
    }),
  })
  .strict();
export type AuditCounts = z.output<typeof auditCountsSchema>;

const paymentPageSchema = z
  .object({
    page: z.string().meta({ description: 'The payment page as the inventory writes it: `host` or `host/path`.' }),
    host: z.string(),
    headers: z.array(auditHeaderSchema).meta({ description: "The CSP headers in force on the page's host." }),
    scripts: z
      .array(auditScriptSchema)
      .meta({ description: 'Every script page security saw on the page, sorted by URL then id.' }),
    counts: auditCountsSchema,
  })
  .strict();
export type AuditPaymentPage = z.output<typeof paymentPageSchema>;

const inventorySchema = z
  .object({
    name: z.string().meta({ description: "The ScriptInventory resource's name in the program." }),
    urn: z.string(),
    zoneId: z.string(),
    pages: z.array(paymentPageSchema).meta({ description: 'Its payment pages, in the order written.' }),
    counts: auditCountsSchema.meta({
      description: 'Its scripts by integrity and the malicious ones, each script once.',
    }),
    staleEntries: z.array(auditEntrySchema).meta({
      description:
        'Its entries that no script detected on the pages matches: listed for review, not a failure (a script may be loaded rarely).',
    }),
    headerChanges: z.array(headerChangeSchema).optional().meta({
      description:
        "The CSP headers of its pages' hosts that are not as the stack's CspPolicy resources declare them (a policy the stack does not manage, one changed or disabled outside the stack, one deleted), each with the policy before (the stack's) and after (live); each fails the audit. A new field of format version 1 (an addition, so the version stays): evidence written before it lacks it.",
    }),
  })
  .strict();
export type AuditInventory = z.output<typeof inventorySchema>;

/** The whole evidence of one evaluation. */
export const auditEvidenceSchema = z
  .object({
    format: z.literal(AUDIT_FORMAT),
    formatVersion: z.literal(AUDIT_FORMAT_VERSION),
    evaluatedAt: time('When the state and the service were read'),
    tool: z.object({ name: z.literal('edgeguard-audit'), version: z.string() }).strict(),
    project: z.string().meta({ description: 'The Pulumi project.' }),
    stack: z.string().meta({ description: 'The Pulumi stack whose inventories are audited.' }),
    passed: z.boolean().meta({
      description:
        'No script is unauthorized, changed or malicious (unpinned scripts pass) and no CSP header changed outside the stack (`headerChanges`): the exit status is 0 when true, 1 when false.',
    }),
    counts: auditCountsSchema.meta({
      description: "Every inventory's scripts by integrity and the malicious ones, summed.",
    }),
    inventories: z.array(inventorySchema),
  })
  .strict();

/** The evidence `edgeguard-audit` gathers and writes: the model its Markdown, HTML and JSON show. */
export type AuditEvidence = z.output<typeof auditEvidenceSchema>;
