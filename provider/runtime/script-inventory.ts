import './compile-cache';
import { z } from 'zod';
import { cspSources, parseScriptInventory, type ScriptInventory } from '../../rules/inventory';
import { pinnedHeaderProblem } from '../../rules/security-headers';
import { expecting, shown } from '../../rules/zod';
import type { HttpClient } from '../client/http';
import { entryText, INTEGRITIES, readPaymentScripts } from '../payment/scripts';
import { zoneIdSchema } from './check';
import { ownerOf, ResourceStateError, type Runtime } from './contract';

/**
 * Runtime of `ScriptInventory`: the scripts authorized on a zone's payment pages, each with its
 * written justification (PCI DSS 4.0 requirement 6.4.3, issue 25). The inventory is held in the
 * stack, not by the service: create, update and delete write nothing; the service's part is the
 * enforcing `CspPolicy` a program feeds with `cspSources`. What the resource reads is what page
 * security detects on the pages now, so a refresh shows a pinned script whose content changed.
 * The id is the zone id.
 */

/** A text field of an entry: `is required: <what>`, or `must be a string: <what> (got ...)`. */
function textField(what: string) {
  return z.string({
    error: (issue) =>
      issue.input === undefined ? `is required: ${what}` : `must be a string: ${what} (got ${shown(issue.input)})`,
  });
}

const entrySchema = z.object({
  url: textField('the https: URL of one script')
    .optional()
    .meta({
      description: `The URL of one script, \`https://host/path\`, with its query if the page loads it with one;
      give one of \`url\`, \`prefix\` and \`inline\`.`,
    }),
  prefix: textField('an https: path prefix ending in /')
    .optional()
    .meta({
      description: `Every script under a path, \`https://host/path/\` (ending in \`/\`, as CSP reads a prefix); give
      one of \`url\`, \`prefix\` and \`inline\`.`,
    }),
  inline: textField("an inline script's hash, sha256-<base64>")
    .optional()
    .meta({
      description: `An inline script, by the SHA-256 of its text as CSP writes it: \`sha256-<base64>\`, with or without
      the quotes of the CSP form (\`'sha256-<base64>'\`, what \`edgeguard-probe\` and a browser's console give).
      \`cspSources\` carries it as \`'sha256-<base64>'\`, so the enforcing policy lets exactly that script run. Give
      one of \`url\`, \`prefix\` and \`inline\`. A script whose text changes at every load cannot be pinned: move
      what changes into a JSON data block (\`<script type="application/json">\`).`,
    }),
  justification: textField('why the script is on the payment pages').meta({
    description: `Why the script is on the payment pages: the business or technical reason PCI DSS 6.4.3 asks
      for. Blank, or the marked blank \`edgeguard-inventory\` writes, fails preview naming the entry.`,
  }),
  owner: textField('the person or team').optional().meta({
    description: 'Who answers for the script: a person or a team.',
  }),
  hash: textField('the hexadecimal hash page security reports')
    .optional()
    .meta({
      description: `The hash of the version approved, as page security reports it (hexadecimal); a \`url\` entry
      only. A script whose live hash differs shows in \`detected\` after a refresh.`,
    }),
});

const frameSchema = z.object({
  prefix: textField('an https: URL prefix ending in /').meta({
    description: `The frames' URLs, \`https://host/path/\` (ending in \`/\`), as in \`https://js.pay.example/v3/\`.`,
  }),
  justification: textField('why the frame is on the payment pages').meta({
    description: 'Why the frame is on the payment pages (a payment provider’s card frame, say).',
  }),
  owner: textField('the person or team').optional().meta({
    description: 'Who answers for the frame: a person or a team.',
  }),
});

/** The inputs, as `check` accepts them. */
export const inputsSchema = z
  .object({
    zoneId: zoneIdSchema.meta({
      description: 'The zone of the payment pages: its 32-character hexadecimal id.',
      // Another zone's pages are another inventory.
      replaces: true,
    }),
    pages: z.array(textField('a page as host or host/path-prefix'), expecting('a list of pages')).meta({
      description: `The payment pages, each \`host\` (every page of the host) or \`host/path-prefix\` (that path and
          the pages under it, by whole segments), as in \`shop.example.com/checkout\`.`,
    }),
    scripts: z.array(entrySchema, expecting('a list of script entries')).meta({
      description: `The scripts authorized on the pages, each with exactly one of \`url\`, \`prefix\` and \`inline\`,
        and a justification.`,
    }),
    frames: z
      .array(frameSchema, expecting('a list of frame entries'))
      .optional()
      .meta({
        description: `The frames the payment pages may embed, each a URL prefix with its justification: a payment
          provider's card frame. \`edgeguard-probe\` alerts on a frame no entry authorizes (a fake card form laid
          over the real one), and lists the scripts inside an authorized frame of another origin under that frame
          rather than judging them against \`scripts\`.`,
      }),
    cardDestinations: z
      .array(textField('an https: or wss: URL prefix'), expecting('a list of URL prefixes'))
      .optional()
      .meta({
        description: `The URL prefixes (\`https:\` or \`wss:\`) a card number typed on the payment pages may be sent to,
          as in \`https://api.pay.example/v1/tokens\`. \`edgeguard-probe\` types a test card into the card fields and
          alerts on any request that carries the number anywhere else.`,
      }),
    headers: z
      .record(z.string(), textField('the exact value the page sends'), expecting('a map of header names to values'))
      .optional()
      .superRefine((headers, ctx) => {
        const seen = new Set<string>();
        for (const [name, value] of Object.entries(headers ?? {})) {
          const problem = pinnedHeaderProblem(name, value);
          if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [name], message: problem });
          else if (seen.has(name.toLowerCase()))
            ctx.addIssue({
              code: 'custom',
              path: [name],
              message: `${JSON.stringify(name)} is pinned twice (header names ignore case)`,
            });
          seen.add(name.toLowerCase());
        }
      })
      .meta({
        description: `Security headers the payment pages must send, by name, each with its exact value, as in
          \`{ "strict-transport-security": "max-age=63072000", "x-frame-options": "DENY" }\`:
          \`strict-transport-security\`, \`x-frame-options\`, \`x-content-type-options\`, \`referrer-policy\` or
          \`permissions-policy\` (the CSP headers are the stack's \`CspPolicy\` resources'). \`edgeguard-probe\` loads
          the pages in a browser and alerts when one is missing or differs.`,
      }),
  })
  // The fields' own types are checked first; the rules then judge the inventory as a whole, each
  // problem at its property and its message naming the entry (`scripts[1] (url "..."): ...`).
  .superRefine((inputs, ctx) => {
    const parsed = parseScriptInventory(inputs);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', path: parsed.error.path, message: parsed.error.message });
  });

/** The checked inputs. */
export type ScriptInventoryInputs = z.output<typeof inputsSchema>;

const detectedSchema = z.object({
  url: z.string().meta({ description: 'The script as page security reports it.' }),
  id: z.string().meta({ description: "The script's id in page security." }),
  hash: z
    .string()
    .optional()
    .meta({ description: "The hash of the script's current version (absent on plans without hashes)." }),
  entry: z.string().optional().meta({
    description: 'The `url` or `prefix` of the entry that authorizes the script; absent when none does.',
  }),
  integrity: z.enum(INTEGRITIES).meta({
    description: `\`unchanged\`: its entry pins a hash and the live one is it; \`changed\`: the live hash is another;
      \`unpinned\`: its entry pins none; \`unauthorized\`: no entry authorizes it.`,
  }),
  pages: z.array(z.string()).meta({ description: "The inventory's pages the script was seen on, as reported." }),
});

/** One script page security detects on the inventory's pages. */
export type DetectedScript = z.output<typeof detectedSchema>;

/** The outputs that are not inputs. */
const outputsSchema = z.object({
  cspSources: z.string().meta({
    description: `The \`script-src\` sources that allow what the inventory authorizes, space-separated (\`'none'\`
      when it authorizes nothing): the value of the enforcing \`CspPolicy\`, after \`script-src \`.`,
  }),
  detected: z.array(detectedSchema).meta({
    description: `What page security detects on the pages now, each script with the entry that authorizes it and
      its current hash; read again at every refresh, so a pinned script whose content changed shows here.`,
  }),
});

/** The outputs kept in the state. */
export type ScriptInventoryOutputs = ScriptInventoryInputs & z.output<typeof outputsSchema>;

/** The inventory of inputs that `check` accepted; otherwise a bug, as the engine checks first. */
function inventoryOf(inputs: ScriptInventoryInputs): ScriptInventory {
  const parsed = parseScriptInventory(inputs);
  if (!parsed.ok) throw new ResourceStateError(`ScriptInventory inputs are invalid: ${parsed.error.message}`);
  return parsed.value;
}

/**
 * What page security detects on the inventory's pages (`../payment/scripts.ts`), as the output
 * keeps it: sorted by URL, so the output changes only when what is detected does.
 */
export async function detectedScripts(
  client: HttpClient,
  zoneId: string,
  inventory: ScriptInventory,
): Promise<DetectedScript[]> {
  return (await readPaymentScripts(client, zoneId, inventory)).map((script) => ({
    url: script.url,
    id: script.id,
    ...(script.hash !== undefined ? { hash: script.hash } : {}),
    ...(script.entry !== undefined ? { entry: entryText(script.entry) } : {}),
    integrity: script.integrity,
    pages: script.pages,
  }));
}

async function outputs(client: HttpClient, inputs: ScriptInventoryInputs): Promise<ScriptInventoryOutputs> {
  const inventory = inventoryOf(inputs);
  return {
    zoneId: inputs.zoneId,
    pages: inputs.pages,
    scripts: inputs.scripts,
    ...(inputs.frames !== undefined ? { frames: inputs.frames } : {}),
    ...(inputs.cardDestinations !== undefined ? { cardDestinations: inputs.cardDestinations } : {}),
    ...(inputs.headers !== undefined ? { headers: inputs.headers } : {}),
    cspSources: cspSources(inventory),
    detected: await detectedScripts(client, inputs.zoneId, inventory),
  };
}

/** The runtime of `ScriptInventory`. */
export const runtime: Runtime<ScriptInventoryInputs, ScriptInventoryOutputs> = {
  resource: 'ScriptInventory',
  description: `The scripts authorized on a zone's payment pages, each with the written justification PCI DSS 4.0
    requirement 6.4.3 asks for, and the version approved where it is pinned. The id is the zone id.

    The inventory is held in the stack: creating, changing or deleting it writes nothing to the service.
    Its \`cspSources\` feed the enforcing \`CspPolicy\` (\`script-src \` followed by them), so the browser loads
    exactly what the inventory authorizes. \`detected\` is what page security detects on the pages now, each
    script with the entry that authorizes it and its current hash: a refresh reads it again, so a pinned
    script whose content changed, or a script no entry authorizes, shows as drift.`,
  inputs: inputsSchema,
  outputs: outputsSchema,
  // Known from the inputs alone: a preview of a changed inventory knows them, and so the value of
  // the CspPolicy they feed.
  derived: (inputs) => ({ cspSources: cspSources(inventoryOf(inputs)) }),

  async create(ctx, inputs) {
    return { id: inputs.zoneId, outs: await outputs(ctx.client, inputs) };
  },

  async read(ctx, id, props) {
    const zoneId = ownerOf('ScriptInventory', id, props, 'zoneId');
    if (props.pages === undefined || props.scripts === undefined) {
      throw new ResourceStateError(
        `ScriptInventory ${id}: the inventory is held in the stack, not by the service, so it cannot be read from the zone alone; declare it in the program`,
      );
    }
    const inputs = {
      zoneId,
      pages: props.pages,
      scripts: props.scripts,
      ...(props.frames !== undefined ? { frames: props.frames } : {}),
      ...(props.cardDestinations !== undefined ? { cardDestinations: props.cardDestinations } : {}),
      ...(props.headers !== undefined ? { headers: props.headers } : {}),
    };
    return { props: await outputs(ctx.client, inputs), inputs };
  },

  async update(ctx, _id, _olds, news) {
    return outputs(ctx.client, news);
  },

  // Nothing of the inventory is on the service: the stack forgets it.
  async delete() {},
};
