import { z } from 'zod';
import { SECURITY_HEADERS } from '../../rules/security-headers';
import { CARD_ENCODINGS } from './card';
import { INTEGRITIES } from './scripts';

/**
 * What `edgeguard-probe` writes (`--json`): the payment pages as a shopper's browsers received them
 * (PCI DSS 4.0 requirement 11.6.1, issues 33 and 41), each loaded as a desktop and as a phone, and
 * the alerts against the inventory and the stack, each saying which device and load saw it.
 * One zod schema, documented by each field's `description`, checked by the tests. The shape is
 * stable within a {@link PROBE_FORMAT_VERSION}: fields may be added, none removed or changed in
 * meaning without a new version. Every object is strict. Every text that comes from a page (URLs,
 * header values, violations) is data as received, never markup.
 */

/** The value of `format`, by which an ingesting tool recognizes the document. */
export const PROBE_FORMAT = 'edgeguard-probe';

/** The version of the shape below; a change that is not an addition makes a new one. */
export const PROBE_FORMAT_VERSION = 2;

/** The devices a page is loaded as. */
export const DEVICES = ['desktop', 'phone'] as const;

/** The kinds of script the browser runs: from a URL, an inline `<script>`, code given to `eval` and the like. */
export const SCRIPT_KINDS = ['external', 'inline', 'eval'] as const;

/** Where a script ran: the top document, a frame, a worker, a service worker. */
export const SCRIPT_CONTEXTS = ['page', 'frame', 'worker', 'service-worker'] as const;

/** How a request sent after the card was typed went out. */
export const REQUEST_VIAS = [
  'fetch',
  'xhr',
  'beacon',
  'image',
  'form',
  'navigation',
  'script',
  'websocket',
  'other',
] as const;

const seenOnSchema = z
  .array(z.object({ device: z.enum(DEVICES), load: z.number().int().min(1) }).strict())
  .meta({ description: 'The loads that saw it: the device (`desktop`, `phone`) and the load’s number on it.' });

const hashSource = z.string().meta({
  description: "The script's CSP hash source, `'sha256-<base64>'`: what an `inline` entry of the inventory takes.",
});

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

/** The alerts, each naming what differs from the inventory or the stack, and the loads that saw it. */
export const probeAlertSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('page-unavailable'),
      reason: z
        .string()
        .meta({ description: 'Why the page did not load: the browser’s error, the time limit, or the HTTP status.' }),
      seenOn: seenOnSchema,
    })
    .strict()
    .meta({ description: 'The page did not load, so nothing on it could be compared.' }),
  z
    .object({
      kind: z.literal('script-unauthorized'),
      script: z.enum(SCRIPT_KINDS).meta({
        description:
          '`external`: a script from a URL; `inline`: a `<script>` of the page, in its HTML or inserted at run time; `eval`: code given to `eval`, a string timer or `new Function`.',
      }),
      url: z.string().optional().meta({ description: 'An external script’s URL; the name eval code gave itself.' }),
      sha256: sha256.optional(),
      hashSource: hashSource.optional(),
      frame: z.string().meta({ description: 'The document or worker it ran in.' }),
      context: z.enum(SCRIPT_CONTEXTS),
      changesEveryLoad: z.boolean().optional().meta({
        description:
          'An inline script whose text differed at every load: it cannot be pinned by its hash; move what changes into a JSON data block.',
      }),
      seenOn: seenOnSchema,
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
      seenOn: seenOnSchema,
    })
    .strict()
    .meta({ description: 'A pinned script whose body, as the browser received it, has another hash.' }),
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
      seenOn: seenOnSchema,
    })
    .strict()
    .meta({
      description:
        'A security header received that differs from what the stack or the inventory says; several values of one header are joined with ", ", as HTTP combines them.',
    }),
  z
    .object({
      kind: z.literal('frame-unauthorized'),
      url: z.string().meta({ description: 'The frame’s document.' }),
      host: z.string(),
      seenOn: seenOnSchema,
    })
    .strict()
    .meta({
      description:
        'A frame of another origin that no entry of the inventory’s `frames` authorizes: a fake card form laid over the real one looks so.',
    }),
  z
    .object({
      kind: z.literal('card-sent'),
      url: z.string().meta({ description: 'Where the request carrying the card number went.' }),
      host: z.string(),
      via: z.enum(REQUEST_VIAS),
      encoding: z.enum(CARD_ENCODINGS).meta({
        description:
          'How it carried the number: `plain`, `separated` (spaces, dashes), `url-encoded`, `base64` or `hex` of a text holding it.',
      }),
      seenOn: seenOnSchema,
    })
    .strict()
    .meta({ description: 'After the test card was typed, a request carried its number outside `cardDestinations`.' }),
  z
    .object({
      kind: z.literal('page-redirected'),
      finalUrl: z.string().meta({ description: 'Where the browser ended up.' }),
      host: z.string(),
      seenOn: seenOnSchema,
    })
    .strict()
    .meta({
      description: 'The payment page ended on a URL that is none of the inventory’s pages: a look-alike checkout.',
    }),
  z
    .object({
      kind: z.literal('service-worker-unauthorized'),
      url: z.string().meta({ description: 'The service worker’s script.' }),
      sha256: sha256.optional(),
      seenOn: seenOnSchema,
    })
    .strict()
    .meta({ description: 'The page registered a service worker whose script no entry of the inventory authorizes.' }),
  z
    .object({
      kind: z.literal('script-blocked'),
      directive: z.string(),
      blockedUrl: z.string().meta({ description: 'What the enforced policy blocked: a URL, `inline` or `eval`.' }),
      seenOn: seenOnSchema,
    })
    .strict()
    .meta({
      description:
        'The page’s enforced CSP blocked a script: an injection stopped, or a page the policy breaks; either needs a person.',
    }),
]);
export type ProbeAlert = z.output<typeof probeAlertSchema>;

/** What a person should know that fails the run only under `--strict`. */
export const probeNoticeSchema = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('script-unreported'), url: z.string(), sha256: sha256.optional(), seenOn: seenOnSchema })
    .strict()
    .meta({
      description:
        'An authorized script the browser ran that page security has not reported on any page of the inventory yet: its monitoring does not cover it yet.',
    }),
]);
export type ProbeNotice = z.output<typeof probeNoticeSchema>;

/** One script the browser ran, as the debugging protocol reported it. */
export const probeScriptSchema = z
  .object({
    kind: z.enum(SCRIPT_KINDS),
    url: z.string().optional().meta({
      description: 'External: the script’s URL; inline: its document’s; eval: the name it gave itself, if any.',
    }),
    sha256: sha256
      .optional()
      .meta({ description: 'SHA-256 of its text as the browser parsed it (lowercase hexadecimal).' }),
    hashSource: hashSource.optional(),
    error: z.string().optional().meta({ description: 'Why its text could not be read, when it could not.' }),
    frame: z.string().meta({ description: 'The document or worker it ran in.' }),
    context: z.enum(SCRIPT_CONTEXTS),
    entry: z.string().optional().meta({
      description: 'The `url`, `prefix` or `inline` hash of the entry that authorizes it; absent when none does.',
    }),
    integrity: z.enum(INTEGRITIES).optional().meta({
      description:
        'Against the inventory: `unchanged`, `changed`, `unpinned` or `unauthorized`; absent for a script of an authorized frame of another origin.',
    }),
    underFrame: z.string().optional().meta({
      description:
        'The `frames` entry of the authorized frame of another origin it ran in: the frame’s provider answers for it, it is not judged.',
    }),
    pageSecurity: z
      .object({
        reported: z.boolean().meta({ description: 'Page security reports the script on a page of the inventory.' }),
        hash: z
          .string()
          .optional()
          .meta({ description: "Its hash of the script's current version, when it reports one." }),
      })
      .strict()
      .optional()
      .meta({ description: 'External scripts of the page: what page security reports of it.' }),
    seenOn: seenOnSchema,
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

const probeLoadSchema = z
  .object({
    device: z.enum(DEVICES),
    load: z.number().int().min(1),
    loaded: z.boolean(),
    status: z.number().int().optional(),
    finalUrl: z.string().optional(),
    scripts: z.number().int().min(0).meta({ description: 'Scripts the browser ran on this load.' }),
    cardFields: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Card fields (`autocomplete="cc-…"`) the test card was typed into, in every frame.' }),
    requestsAfterCard: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Requests (and WebSocket messages) the browser sent once the card was typed.' }),
  })
  .strict()
  .meta({ description: 'One load of the page, each in a fresh browser context.' });

const seenUrlSchema = z
  .object({
    url: z.string(),
    entry: z.string().optional().meta({ description: 'The entry that authorizes it; absent when none does.' }),
    seenOn: seenOnSchema,
  })
  .strict();

const probePageSchema = z
  .object({
    page: z.string().meta({ description: 'The payment page as the inventory writes it: `host` or `host/path`.' }),
    url: z.string().meta({ description: 'The URL loaded: `https://` and the page.' }),
    loaded: z
      .boolean()
      .meta({ description: 'A load of the page had a successful status; when false, only `alerts` says why.' }),
    status: z.number().int().optional().meta({ description: 'The HTTP status of the page, when a response came.' }),
    finalUrl: z
      .string()
      .optional()
      .meta({ description: 'The URL of the document at the end of the first load that loaded.' }),
    headers: z.partialRecord(z.enum(SECURITY_HEADERS), z.string()).meta({
      description:
        'The security headers of the first load that loaded, by lowercase name; several of one name joined with ", ".',
    }),
    loads: z.array(probeLoadSchema).meta({ description: 'Each load: desktop ones, then phone ones.' }),
    scripts: z.array(probeScriptSchema).meta({
      description: 'Every script the browser ran on any load, by kind, URL and hash, each with the loads that ran it.',
    }),
    frames: z.array(seenUrlSchema).meta({ description: 'The frames of other documents the page held.' }),
    serviceWorkers: z.array(seenUrlSchema).meta({ description: 'The service workers the page registered.' }),
    violations: z
      .array(probeViolationSchema.extend({ seenOn: seenOnSchema }))
      .meta({ description: 'The CSP violations the page reported.' }),
    alerts: z
      .array(probeAlertSchema)
      .meta({ description: 'What differs from the inventory and the stack; empty when all is as pinned.' }),
    notices: z
      .array(probeNoticeSchema)
      .meta({ description: 'What a person should know; it fails the run under `--strict` only.' }),
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
    settings: z
      .object({
        devices: z.array(z.enum(DEVICES)),
        loads: z.number().int().min(1).meta({ description: 'Loads of each page on each device (`--loads`).' }),
        settleSeconds: z
          .number()
          .min(0)
          .meta({ description: 'How long recording went on after the load event and after typing (`--settle`).' }),
        cardLast4: z.string().meta({ description: 'The last four digits of the test card typed (`--card`).' }),
        submit: z.boolean().meta({ description: '`--submit`: the card’s form was submitted (staging only).' }),
        strict: z.boolean().meta({ description: '`--strict`: notices fail the run too.' }),
      })
      .strict(),
    passed: z.boolean().meta({
      description: 'No alert on any page (nor notice under `--strict`): the exit status is 0 when true, 1 when false.',
    }),
    counts: z
      .object({
        pages: z.number().int().min(0),
        loads: z.number().int().min(0),
        loaded: z.number().int().min(0).meta({ description: 'Loads that loaded.' }),
        scripts: z.number().int().min(0).meta({ description: 'Distinct scripts run, summed over the pages.' }),
        alerts: z.number().int().min(0),
        notices: z.number().int().min(0),
      })
      .strict(),
    inventories: z.array(probeInventorySchema),
  })
  .strict();

/** What `edgeguard-probe` writes: the model its Markdown and JSON show. */
export type ProbeReport = z.output<typeof probeReportSchema>;
