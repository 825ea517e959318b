import { z } from 'zod';
import { SECURITY_HEADERS } from '../../rules/security-headers';
import { INTEGRITIES } from './scripts';

/**
 * What `edgeguard-probe` writes (`--json`): the payment pages as a shopper's browser received them
 * (PCI DSS 4.0 requirement 11.6.1, issue 33) and the alerts against the inventory and the stack.
 * One zod schema, documented by each field's `description`, checked by the tests. The shape is
 * stable within a {@link PROBE_FORMAT_VERSION}: fields may be added, none removed or changed in
 * meaning without a new version. Every object is strict. Every text that comes from a page (URLs,
 * header values, violations) is data as received, never markup.
 */

/** The value of `format`, by which an ingesting tool recognizes the document. */
export const PROBE_FORMAT = 'edgeguard-probe';

/** The version of the shape below; a change that is not an addition makes a new one. */
export const PROBE_FORMAT_VERSION = 1;

/** A SHA-256 in the service's hash format: 64 lowercase hexadecimal digits. */
const sha256 = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .meta({
    description: 'SHA-256 of the body received, 64 lowercase hexadecimal digits (the hash format of page security).',
  });

const managerSchema = z
  .object({ name: z.string(), urn: z.string() })
  .strict()
  .meta({ description: 'A CspPolicy resource of the stack.' });

/** The alerts, each naming what differs from the inventory or the stack. */
export const probeAlertSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('page-unavailable'),
      reason: z
        .string()
        .meta({ description: 'Why the page did not load: the browser’s error, the time limit, or the HTTP status.' }),
    })
    .strict()
    .meta({ description: 'The page did not load, so nothing on it could be compared.' }),
  z
    .object({
      kind: z.literal('script-unauthorized'),
      url: z.string(),
      sha256: sha256.optional(),
    })
    .strict()
    .meta({ description: 'The browser ran a script that no entry of the inventory authorizes.' }),
  z
    .object({
      kind: z.literal('script-changed'),
      url: z.string(),
      entryIndex: z
        .number()
        .int()
        .min(0)
        .meta({ description: "The pinning entry's index in the inventory's `scripts`." }),
      pinned: z.string().meta({ description: 'The hash the entry pins.' }),
      received: sha256
        .optional()
        .meta({ description: 'The hash of the body the browser received; absent when the body could not be read.' }),
      pageSecurity: z
        .string()
        .optional()
        .meta({ description: "Page security's hash of the script now; absent when it has not reported it." }),
      pageSecurityAgrees: z.enum(['with-browser', 'with-pin', 'with-neither', 'unreported']).meta({
        description:
          '`with-pin`: page security still reports the pinned version, so the body differs for browsers only (what a skimmer that cloaks does); `with-browser`: page security sees the same change; `with-neither`: a third version; `unreported`: page security has not reported the script.',
      }),
    })
    .strict()
    .meta({ description: 'A pinned script whose body, as the browser received it, has another hash.' }),
  z
    .object({ kind: z.literal('script-unreported'), url: z.string(), sha256: sha256.optional() })
    .strict()
    .meta({
      description:
        'The browser ran a script that page security has not reported on this page yet: its monitoring does not cover it.',
    }),
  z
    .object({
      kind: z.literal('header-changed'),
      header: z.enum(SECURITY_HEADERS),
      expected: z
        .string()
        .nullable()
        .meta({ description: 'The value the stack or the inventory says the page sends; null when it sends none.' }),
      received: z.string().nullable().meta({ description: 'The value received; null when the header was not sent.' }),
      pinnedBy: z.enum(['stack', 'inventory']).meta({
        description:
          "`stack`: a CSP header, compared with the stack's CspPolicy resources for the host; `inventory`: a header the inventory pins (`headers`).",
      }),
      managedBy: z
        .array(managerSchema)
        .meta({ description: 'The CspPolicy resources whose headers were expected (CSP headers only).' }),
    })
    .strict()
    .meta({
      description:
        'A security header received that differs from what the stack or the inventory says; several values of one header are joined with ", ", as HTTP combines them.',
    }),
]);
export type ProbeAlert = z.output<typeof probeAlertSchema>;

/** One script the browser ran from a URL, with the body it received. */
export const probeScriptSchema = z
  .object({
    url: z.string().meta({ description: 'The script as the browser loaded it.' }),
    sha256: sha256.optional(),
    error: z.string().optional().meta({ description: 'Why its body could not be read, when it could not.' }),
    entry: z
      .string()
      .optional()
      .meta({ description: 'The `url` or `prefix` of the entry that authorizes it; absent when none does.' }),
    integrity: z.enum(INTEGRITIES).meta({
      description: 'Against the inventory, by the body received: `unchanged`, `changed`, `unpinned` or `unauthorized`.',
    }),
    pageSecurity: z
      .object({
        reported: z.boolean().meta({ description: 'Page security reports the script on this payment page.' }),
        hash: z
          .string()
          .optional()
          .meta({ description: "Its hash of the script's current version, when it reports one." }),
      })
      .strict(),
  })
  .strict();
export type ProbeScript = z.output<typeof probeScriptSchema>;

/** A CSP violation the page reported (`securitypolicyviolation`). */
export const probeViolationSchema = z
  .object({
    directive: z.string().meta({ description: 'The directive violated (`effectiveDirective`).' }),
    blockedUrl: z.string().meta({ description: 'What was blocked (`blockedURI`): a URL, or `inline`, `eval`.' }),
    disposition: z
      .enum(['enforce', 'report'])
      .meta({ description: '`enforce`: blocked; `report`: a report-only header reported it.' }),
  })
  .strict();
export type ProbeViolation = z.output<typeof probeViolationSchema>;

const probePageSchema = z
  .object({
    page: z.string().meta({ description: 'The payment page as the inventory writes it: `host` or `host/path`.' }),
    url: z.string().meta({ description: 'The URL loaded: `https://` and the page.' }),
    loaded: z
      .boolean()
      .meta({ description: 'The page loaded with a successful status; when false, only `alerts` says why.' }),
    status: z.number().int().optional().meta({ description: 'The HTTP status of the page, when a response came.' }),
    finalUrl: z.string().optional().meta({ description: 'The URL of the document after redirects, when it loaded.' }),
    headers: z
      .partialRecord(z.enum(SECURITY_HEADERS), z.string())
      .meta({ description: 'The security headers received, by lowercase name; several of one name joined with ", ".' }),
    scripts: z
      .array(probeScriptSchema)
      .meta({ description: 'Every script the browser ran from a URL, sorted by URL.' }),
    violations: z.array(probeViolationSchema).meta({ description: 'The CSP violations the page reported, in order.' }),
    alerts: z
      .array(probeAlertSchema)
      .meta({ description: 'What differs from the inventory and the stack; empty when all is as pinned.' }),
  })
  .strict();
export type ProbePage = z.output<typeof probePageSchema>;

const probeInventorySchema = z
  .object({
    name: z.string().meta({ description: "The ScriptInventory resource's name in the program." }),
    urn: z.string(),
    zoneId: z.string(),
    pages: z.array(probePageSchema).meta({ description: 'Its payment pages, in the order written.' }),
  })
  .strict();
export type ProbeInventory = z.output<typeof probeInventorySchema>;

/** The whole outcome of one probe. */
export const probeReportSchema = z
  .object({
    format: z.literal(PROBE_FORMAT),
    formatVersion: z.literal(PROBE_FORMAT_VERSION),
    evaluatedAt: z.string().meta({ description: 'When the pages were loaded (ISO 8601, UTC).' }),
    tool: z.object({ name: z.literal('edgeguard-probe'), version: z.string() }).strict(),
    project: z.string().meta({ description: 'The Pulumi project.' }),
    stack: z.string().meta({ description: 'The Pulumi stack whose inventories are probed.' }),
    browser: z
      .string()
      .meta({ description: 'The browser that loaded the pages, as it names itself (`chrome/156.0...`).' }),
    staging: z
      .object({
        resolve: z
          .array(z.string())
          .meta({ description: 'The `--resolve HOST:PORT:ADDRESS` given: these hosts were not looked up in DNS.' }),
        insecure: z.boolean().meta({ description: '`--insecure`: certificates were not checked.' }),
      })
      .strict()
      .meta({ description: 'What made this load unlike a shopper’s; a probe for evidence has neither.' }),
    passed: z.boolean().meta({ description: 'No alert on any page: the exit status is 0 when true, 1 when false.' }),
    counts: z
      .object({
        pages: z.number().int().min(0),
        loaded: z.number().int().min(0),
        scripts: z.number().int().min(0).meta({ description: 'Scripts run, summed over the pages.' }),
        alerts: z.number().int().min(0),
      })
      .strict(),
    inventories: z.array(probeInventorySchema),
  })
  .strict();

/** What `edgeguard-probe` writes: the model its Markdown and JSON show. */
export type ProbeReport = z.output<typeof probeReportSchema>;
