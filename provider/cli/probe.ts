#!/usr/bin/env node
import { isIP } from 'node:net';
import * as path from 'node:path';
import { z } from 'zod';
import { validateHostname } from '../../rules/hostname';
import { shown } from '../format/escape';
import { probeMarkdown, probeSummaryLines, stagingText } from '../format/probe-markdown';
import { PLUGIN_VERSION } from '../plugin/version';
import { DEFAULT_CARD, testCard } from '../payment/card';
import { judgePage, pageUrl, probeExitStatus, probeReport, type PageLoad } from '../payment/probe';
import { findBrowser, launchProbeBrowser, type LoadPlan, type ResolveRule } from '../payment/probe-browser';
import { DEVICES } from '../payment/probe-schema';
import { readPaymentScripts } from '../payment/scripts';
import { checkOneStdout, couldNotBeDone, runTool, sayAs, writeOutput } from './runner';
import { masked, parseStackFlags, readStack, reasonOf } from './stack-reading';

/**
 * `edgeguard-probe`: PCI DSS 4.0 requirement 11.6.1 as the browser runs it (issues 33 and 41).
 * Loads every payment page of every `ScriptInventory` of a stack in headless Chromium or Chrome, as
 * a shopper's desktop and phone would, types a test card into the card fields, and compares what
 * the browser ran and sent (security headers, every script with its hash, frames, service workers,
 * the requests that carried the card, CSP violations) with the inventory, page security and the
 * stack's CSP policies. Reads the stack and the service as `edgeguard-audit` does; changes nothing
 * (its form is submitted only with `--submit`, for staging).
 */

/** Pages loaded at once by default: a few, so a small runner is not swamped. */
const PARALLEL = 3;
/** A page's time limit by default, in seconds. */
const TIMEOUT_SECONDS = 30;
/** How long recording goes on after the load event and after the card by default, in seconds. */
const SETTLE_SECONDS = 5;

const USAGE = `usage: edgeguard-probe [--cwd DIR] [--stack NAME] [--markdown FILE] [--json FILE] [--browser PATH]
                      [--loads N] [--settle SECONDS] [--card NUMBER] [--submit] [--strict]
                      [--timeout SECONDS] [--parallel N] [--resolve HOST:PORT:ADDRESS]... [--insecure]

Loads every payment page of every ScriptInventory in stack NAME (default: the selected stack) of the
Pulumi project in DIR (default: the current folder) in headless Chromium or Chrome, as a shopper's
desktop and phone would (no sign of automation), each load in a fresh browser context, and records
what the browser ran: the security headers, every script of every frame, worker and service worker
(external with the SHA-256 of its text, inline and eval code with their CSP hash), the frames, the
CSP violations; then it types a test card into every card field (autocomplete="cc-...") of every
frame, as a person, and records every request sent afterwards. It compares them with the inventory
(the scripts, inline hashes, frames and card destinations it authorizes, the hashes and headers it
pins), with what page security reports, and with the CSP headers the stack's CspPolicy resources
declare for the host. Reads the stack's state and its edgeguard:* configuration (secrets decrypted;
EDGEGUARD_* variables as fallback) and the service; changes nothing.
  --markdown FILE     the report as Markdown (- for stdout; the default when no output is given)
  --json FILE         the report as JSON, the shape of provider/payment/probe-schema.ts (- for stdout)
  --browser PATH      Chromium or Chrome (default: chromium, chromium-browser, google-chrome,
                      google-chrome-stable or chrome, the first on PATH)
  --loads N           loads of each page on each device (default 1)
  --settle SECONDS    how long to keep recording after the load event, and after the card is
                      typed, at least until the network is quiet (default ${SETTLE_SECONDS})
  --card NUMBER       the test card typed (default ${DEFAULT_CARD}); never a real card
  --submit            submit the card's form once typed: for staging only
  --strict            a notice (an authorized script page security has not reported) fails the run
  --timeout SECONDS   each page's time limit (default ${TIMEOUT_SECONDS})
  --parallel N        loads made at once (default ${PARALLEL})
  --resolve HOST:PORT:ADDRESS
                      for tests and staging: connect to ADDRESS for HOST on PORT, as curl's
                      option (repeatable); said on stderr and in the report
  --insecure          for tests and staging: accept any certificate; said on stderr and in the report
At most one output may be -.
Exit status:
  0  every load of every page is as the inventory allows: each script it ran authorized, a pinned
     one with the hash pinned; no frame, service worker or card request it does not allow; no
     script blocked by the enforced CSP; the page not redirected; the CSP headers those of the
     stack's CspPolicy resources for the host, the headers the inventory pins with their exact
     values. Notices (an authorized script page security has not reported yet) are said
  1  an alert: a page that did not load, a script no entry authorizes (external, inline, eval),
     a pinned script whose body has another hash, a frame or service worker no entry authorizes,
     the card number sent outside cardDestinations, the page redirected off its page, a script
     the enforced CSP blocked, a header that differs; or a notice with --strict. Each is named on
     stderr, one a line, with the device and load that saw it
  2  the probe could not be done (no browser, no stack, no ScriptInventory in it, settings, the
     service): the reason on stderr`;

/** A `--resolve` as given: checked, each part named when refused. */
const resolveSchema = z.string().transform((text, ctx): ResolveRule => {
  const match = /^([^:]+):([0-9]{1,5}):(.+)$/.exec(text);
  const refuse = (why: string) => {
    ctx.addIssue({ code: 'custom', message: `--resolve ${JSON.stringify(text)}: ${why}` });
    return z.NEVER;
  };
  if (match === null) return refuse('write HOST:PORT:ADDRESS, as in checkout.example.com:443:127.0.0.1');
  const [, host = '', portText = '', bracketed = ''] = match;
  const hostname = validateHostname(host);
  if (!hostname.ok) return refuse(`the host: ${hostname.error.message}`);
  const port = Number(portText);
  if (port < 1 || port > 65535) return refuse(`the port must be 1 to 65535 (got ${portText})`);
  const address = bracketed.replace(/^\[(.*)\]$/, '$1');
  if (isIP(address) === 0)
    return refuse(`the address must be an IPv4 or IPv6 address (got ${JSON.stringify(bracketed)})`);
  return { host: hostname.value, port, address };
});

const wholeNumber = (flag: string, min: number, max: number) =>
  z.coerce
    .number()
    .int({ error: `--${flag} must be a whole number` })
    .min(min, { error: `--${flag} must be at least ${min}` })
    .max(max, { error: `--${flag} must be at most ${max}` });

const argumentsSchema = z.object({
  cwd: z
    .string()
    .default('.')
    .transform((dir) => path.resolve(dir)),
  stack: z.string().optional(),
  markdown: z.string().optional(),
  json: z.string().optional(),
  browser: z.string().optional(),
  timeout: wholeNumber('timeout', 1, 600).default(TIMEOUT_SECONDS),
  loads: wholeNumber('loads', 1, 20).default(1),
  settle: z.coerce
    .number({ error: '--settle must be a number of seconds' })
    .min(0, { error: '--settle must be at least 0' })
    .max(120, { error: '--settle must be at most 120' })
    .default(SETTLE_SECONDS),
  card: z
    .string()
    .default(DEFAULT_CARD)
    .transform((number, ctx) => {
      try {
        return testCard(number);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  submit: z.boolean().default(false),
  strict: z.boolean().default(false),
  parallel: wholeNumber('parallel', 1, 16).default(PARALLEL),
  resolve: z.array(resolveSchema).default([]),
  insecure: z.boolean().default(false),
});

type Arguments = z.output<typeof argumentsSchema> & { resolveGiven: string[] };

function parse(argv: string[]): Arguments | 'help' {
  const values = parseStackFlags(argv, {
    markdown: { type: 'string' },
    json: { type: 'string' },
    browser: { type: 'string' },
    timeout: { type: 'string' },
    loads: { type: 'string' },
    settle: { type: 'string' },
    card: { type: 'string' },
    submit: { type: 'boolean' },
    strict: { type: 'boolean' },
    parallel: { type: 'string' },
    resolve: { type: 'string', multiple: true },
    insecure: { type: 'boolean' },
  });
  if (values.help) return 'help';
  checkOneStdout({ markdown: values.markdown, json: values.json });
  const parsed = argumentsSchema.safeParse(values);
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => issue.message).join('; '));
  const args = { ...parsed.data, resolveGiven: values.resolve ?? [] };
  return args.markdown === undefined && args.json === undefined ? { ...args, markdown: '-' } : args;
}

async function probe(args: Arguments): Promise<number> {
  // One line a call: the runner keeps each message on its line.
  const say = (message: string) => sayAs('edgeguard-probe')(shown(masked(message)));
  // Before the stack and the service: without a browser nothing can be probed.
  const executable = findBrowser(args.browser);
  const staging = { resolve: args.resolveGiven, insecure: args.insecure };
  const stagingNote = stagingText({ staging });
  if (stagingNote !== undefined) say(`${stagingNote}: for tests and staging, not a shopper's load`);
  if (args.submit) say("--submit: the card's form is submitted once typed; for staging only");
  const read = await readStack(args, 'probing its payment pages');
  const reported = await Promise.all(
    read.inventories.map(({ zoneId, inventory }) => readPaymentScripts(read.client, zoneId, inventory)),
  );
  const browser = await launchProbeBrowser({
    executable,
    resolve: args.resolve,
    insecure: args.insecure,
    timeoutMs: args.timeout * 1000,
    parallel: args.parallel,
    settleMs: args.settle * 1000,
    card: args.card,
    submit: args.submit,
  });
  const evaluatedAt = new Date().toISOString();
  const loads = new Map<string, PageLoad[]>();
  try {
    const urls = [...new Set(read.inventories.flatMap(({ inventory }) => inventory.pages.map(pageUrl)))];
    const plans: LoadPlan[] = urls.flatMap((url) =>
      DEVICES.flatMap((device) => Array.from({ length: args.loads }, (_, index) => ({ url, device, load: index + 1 }))),
    );
    say(
      `loading ${urls.length} page${urls.length === 1 ? '' : 's'} ${plans.length} times (desktop and phone, ${args.loads} each)`,
    );
    let done = 0;
    const loaded = await browser.load(plans, (plan, outcome) => {
      if (outcome === undefined) return;
      done += 1;
      const what = outcome.ok
        ? `${outcome.scripts.length} scripts, ${outcome.cardFields} card fields typed, ${outcome.requests.length} requests after`
        : `did not load: ${outcome.reason}`;
      say(`[${done}/${plans.length}] ${plan.url} as ${plan.device} (load ${plan.load}): ${what}`);
    });
    plans.forEach((plan, index) => loads.set(plan.url, [...(loads.get(plan.url) ?? []), loaded[index]!]));
  } finally {
    await browser.close();
  }
  const report = probeReport({
    project: read.project,
    stack: read.stackName,
    toolVersion: PLUGIN_VERSION,
    browser: browser.version,
    staging,
    settings: {
      devices: [...DEVICES],
      loads: args.loads,
      settleSeconds: args.settle,
      cardLast4: args.card.number.slice(-4),
      submit: args.submit,
      strict: args.strict,
    },
    evaluatedAt,
    inventories: read.inventories.map((stackInventory, index) => ({
      name: stackInventory.name,
      urn: stackInventory.urn,
      zoneId: stackInventory.zoneId,
      pages: stackInventory.inventory.pages.map((page) =>
        judgePage(
          stackInventory,
          page,
          loads.get(pageUrl(page)) ?? [],
          reported[index]!,
          read.policies.filter((policy) => policy.zoneId === stackInventory.zoneId),
          args.card.number,
        ),
      ),
    })),
  });
  if (args.markdown !== undefined) writeOutput(args.markdown, masked(probeMarkdown(report)));
  if (args.json !== undefined) writeOutput(args.json, masked(`${JSON.stringify(report, null, 2)}\n`));
  for (const line of probeSummaryLines(report)) say(line);
  return probeExitStatus(report);
}

runTool({ name: 'edgeguard-probe', usage: USAGE, parse, run: probe, failure: couldNotBeDone('probe', reasonOf) });
