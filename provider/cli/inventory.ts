#!/usr/bin/env node
import * as fs from 'node:fs';
import { shown } from '../format/escape';
import { JUSTIFICATION_PLACEHOLDER, parseInventoryPage, type InventoryPage } from '../../rules/inventory';
import { MALICIOUS_SCRIPT_RULE } from '../../rules/malicious';
import { clientFrom } from '../client/shared';
import { inventoryProgram, PROGRAM_LANGUAGES, writeInventory, type ProgramLanguage } from '../program/inventory';
import { inlineSourcesSeen } from '../payment/probe';
import { PROBE_FORMAT_VERSION, probeReportSchema } from '../payment/probe-schema';
import { readPaymentScripts } from '../payment/scripts';
import { explainReadFailure, idFlag, parseFlags, settingsHelp, settingsSynopsis, UsageError } from './settings-flags';
import { runTool, sayAs, unexpectedFailure, writeProgram } from './runner';

/**
 * `edgeguard-inventory`: writes the Pulumi program (TypeScript, or YAML for the provider plugin)
 * declaring the first script inventory of a zone's payment pages and the CSP policies that enforce
 * it, from the scripts page security detected on the pages (`../program/inventory.ts`). It
 * only reads from the service. The program goes to `--out` or stdout; a summary to stderr.
 *
 * Exit status: 0 written; 1 nothing written (a setting, the credentials or the service failed, or
 * the file could not be written); 2 bad usage.
 */

const EXIT = { ok: 0, failed: 1 } as const;

const USAGE = `usage: edgeguard-inventory --zone ZONE_ID --page PAGE [--page PAGE...]
                           [--language typescript|yaml] [--action allow|log] [--out FILE]
                           [--probe FILE]
${settingsSynopsis(27)}

Writes a Pulumi program declaring the ScriptInventory of the payment pages PAGE (PCI DSS 4.0
requirement 6.4.3) from the scripts page security detected on them: one url entry per script, the
hash of its current version pinned, its justification the marked blank "${JUSTIFICATION_PLACEHOLDER}",
which preview refuses until a person writes why the script is there; and, for each host of the
pages, the CspPolicy that enforces the inventory (script-src its cspSources; object-src 'none';
base-uri 'self'), which covers every page of the host. Left out, with why in comments: a
malicious script (${MALICIOUS_SCRIPT_RULE}), which must be removed from the pages, and
a script whose URL the inventory cannot hold (not https). It only reads from the service.

  --zone ZONE_ID        the zone of the pages (32 hexadecimal characters)
  --page PAGE           a payment page: HOST (every page of the host) or HOST/PATH (that path and
                        the pages under it), as in shop.example.com/checkout; repeat for each page
  --language typescript|yaml
                        TypeScript (index.ts) or Pulumi YAML for the provider plugin (Pulumi.yaml)
                        (default: typescript)
  --action allow|log    allow blocks the scripts the inventory does not authorize, log reports them
                        (default: allow)
  --out FILE            where to write the program (default: stdout)
  --probe FILE          edgeguard-probe's JSON report (--json) of the pages: an inline entry, its
                        justification the marked blank, for each inline script the browser ran there
${settingsHelp()}

Exit status: 0 written; 1 nothing written (a setting, the credentials or the service failed, the
probe's report could not be read); 2 bad usage.`;

const say = sayAs('edgeguard-inventory');

/** One of `known` given to `--<flag>`, else `fallback`; or a {@link UsageError}. */
function choice<T extends string>(flag: string, known: readonly T[], given: string | undefined, fallback: T): T {
  const value = given ?? fallback;
  const found = known.find((option) => option === value);
  if (found === undefined) {
    throw new UsageError(`--${flag} must be ${known.join(' or ')}, not ${JSON.stringify(value)}`);
  }
  return found;
}

/** The pages given, each checked as the inventory checks its pages, none twice. */
function pagesOf(given: string[]): { given: string[]; parsed: InventoryPage[] } {
  if (given.length === 0) {
    throw new UsageError('--page is required: a payment page, as in shop.example.com/checkout (repeat for each)');
  }
  const seen = new Map<string, string>();
  const parsed = given.map((text) => {
    const page = parseInventoryPage(text);
    if (!page.ok) throw new UsageError(`--page ${JSON.stringify(text)}: ${page.error.message}`);
    const earlier = seen.get(page.value.text);
    if (earlier !== undefined) {
      throw new UsageError(
        `--page ${JSON.stringify(text)} is the page of --page ${JSON.stringify(earlier)}; give it once`,
      );
    }
    seen.set(page.value.text, text);
    return page.value;
  });
  return { given, parsed };
}

/** The flags, or a {@link UsageError}. */
function parse(argv: string[]) {
  const flags = parseFlags(argv, {
    zone: { type: 'string' },
    page: { type: 'string', multiple: true },
    language: { type: 'string' },
    action: { type: 'string' },
    out: { type: 'string' },
    probe: { type: 'string' },
  });
  if (flags.help) return 'help';
  const zoneId = idFlag('zone', "the zone's id", flags.text('zone'));
  if (zoneId === undefined) throw new UsageError('--zone is required: the id of the zone of the pages');
  return {
    zoneId,
    pages: pagesOf(flags.texts('page')),
    language: choice<ProgramLanguage>('language', PROGRAM_LANGUAGES, flags.text('language'), 'typescript'),
    action: choice('action', ['allow', 'log'] as const, flags.text('action'), 'allow'),
    out: flags.text('out'),
    probe: flags.text('probe'),
    explicit: flags.explicit,
  };
}

/** The inline scripts of `file`, edgeguard-probe's JSON report, on `pages`; throws saying why it cannot be read. */
function probedInline(file: string, pages: readonly InventoryPage[]): string[] {
  let parsed;
  try {
    parsed = probeReportSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch (error) {
    throw new Error(`--probe ${file}: ${(error as Error).message.split('\n')[0] ?? ''}`, { cause: error });
  }
  if (!parsed.success)
    throw new Error(
      `--probe ${file} is not an edgeguard-probe report of format ${PROBE_FORMAT_VERSION} (write it with edgeguard-probe --json): ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`,
    );
  return inlineSourcesSeen(parsed.data, pages);
}

/** Does the command's work with its `options`; returns the exit status. */
async function run(options: Exclude<ReturnType<typeof parse>, 'help'>): Promise<number> {
  const { given, parsed } = options.pages;
  // Before the service: a report that cannot be read is said at once.
  let inline: string[] = [];
  if (options.probe !== undefined)
    try {
      inline = probedInline(options.probe, parsed);
    } catch (error) {
      say((error as Error).message);
      return EXIT.failed;
    }
  let detected;
  try {
    // With no entries, every script on the pages is read, each `unauthorized`.
    detected = await readPaymentScripts(clientFrom({ explicit: options.explicit }), options.zoneId, {
      pages: parsed,
      scripts: [],
    });
  } catch (error) {
    say(explainReadFailure(error, 'zone', options.zoneId));
    return EXIT.failed;
  }
  const inventory = writeInventory(given, detected, inline);
  const program = inventoryProgram(options, inventory);
  if (!writeProgram(options.out, program, say)) return EXIT.failed;
  const pinned = inventory.entries.filter((entry) => entry.hash !== undefined).length;
  const unpinned = inventory.entries.filter((entry) => entry.unpinned !== undefined);
  const policies = inventory.hosts.length;
  say(
    `wrote ${options.out ?? 'the program to stdout'}: an inventory of ${inventory.entries.length} of the ${inventory.detected} scripts detected on ${given.join(', ')} (${pinned} pinned), ` +
      `and ${policies} ${options.action} ${policies === 1 ? 'policy' : 'policies'} enforcing it (${inventory.hosts.join(', ')}); ` +
      (inventory.inline.length > 0
        ? `${inventory.inline.length} inline ${inventory.inline.length === 1 ? 'entry' : 'entries'} for the inline scripts the probe saw; `
        : '') +
      `every justification is the marked blank "${JUSTIFICATION_PLACEHOLDER}", which preview refuses until a person writes one` +
      (inventory.detected === 0
        ? '; page security detected no script on the pages: check that it is on for the zone, and the pages'
        : '') +
      (inventory.leftOut.length > 0
        ? `; left out (see the comments):\n${inventory.leftOut.map((script) => `- ${shown(script.url)}: ${shown(script.reason)}`).join('\n')}`
        : '') +
      (unpinned.length > 0
        ? `\nnot pinned (see the comments):\n${unpinned.map((entry) => `- ${shown(entry.url)}: ${entry.unpinned}`).join('\n')}`
        : ''),
  );
  return EXIT.ok;
}

runTool({ name: 'edgeguard-inventory', usage: USAGE, parse, run, failure: unexpectedFailure(EXIT.failed) });
