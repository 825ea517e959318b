#!/usr/bin/env node
import { isIP } from 'node:net';
import * as path from 'node:path';
import { z } from 'zod';
import { validateHostname } from '../../rules/hostname';
import { probeMarkdown, probeSummaryText, stagingText } from '../format/probe-markdown';
import { PLUGIN_VERSION } from '../plugin/version';
import { judgePage, pageUrl, probeExitStatus, probeReport } from '../payment/probe';
import { findBrowser, launchProbeBrowser, type ResolveRule } from '../payment/probe-browser';
import { readPaymentScripts } from '../payment/scripts';
import { checkOneStdout, couldNotBeDone, runTool, sayAs, writeOutput } from './runner';
import { masked, parseStackFlags, readStack, reasonOf } from './stack-reading';

/**
 * `edgeguard-probe`: PCI DSS 4.0 requirement 11.6.1 as the browser receives it (issue 33). Loads
 * every payment page of every `ScriptInventory` of a stack in headless Chromium or Chrome, as a
 * shopper's browser would, and compares what it received (security headers, the scripts it ran
 * and the hash of each body, CSP violations) with the inventory, page security and the stack's CSP
 * policies. Reads the stack and the service as `edgeguard-audit` does; changes nothing.
 */

/** Pages loaded at once by default: a few, so a small runner is not swamped. */
const PARALLEL = 3;
/** A page's time limit by default, in seconds. */
const TIMEOUT_SECONDS = 30;

const USAGE = `usage: edgeguard-probe [--cwd DIR] [--stack NAME] [--markdown FILE] [--json FILE] [--browser PATH]
                      [--timeout SECONDS] [--parallel N] [--resolve HOST:PORT:ADDRESS]... [--insecure]

Loads every payment page of every ScriptInventory in stack NAME (default: the selected stack) of the
Pulumi project in DIR (default: the current folder) in headless Chromium or Chrome, as a shopper's
browser would, and records what it received: the security headers, every script it ran with the
SHA-256 of the body received, and the CSP violations the page reported. Then it compares them with
the inventory (the scripts it authorizes and pins, the headers it pins), with what page security
reports, and with the CSP headers the stack's CspPolicy resources declare for the host. Reads the
stack's state and its edgeguard:* configuration (secrets decrypted; EDGEGUARD_* variables as
fallback) and the service; changes nothing.
  --markdown FILE     the report as Markdown (- for stdout; the default when no output is given)
  --json FILE         the report as JSON, the shape of provider/payment/probe-schema.ts (- for stdout)
  --browser PATH      Chromium or Chrome (default: chromium, chromium-browser, google-chrome,
                      google-chrome-stable or chrome, the first on PATH)
  --timeout SECONDS   each page's time limit (default ${TIMEOUT_SECONDS})
  --parallel N        pages loaded at once (default ${PARALLEL})
  --resolve HOST:PORT:ADDRESS
                      for tests and staging: connect to ADDRESS for HOST on PORT, as curl's
                      option (repeatable); said on stderr and in the report
  --insecure          for tests and staging: accept any certificate; said on stderr and in the report
At most one output may be -.
Exit status:
  0  every page loaded and is as pinned: each script it ran authorized, a pinned one with the hash
     pinned, each reported by page security; the CSP headers those of the stack's CspPolicy
     resources for the host, the headers the inventory pins with their exact values
  1  an alert: a page that did not load, a script no entry authorizes, a pinned script whose body
     has another hash, a script page security has not reported, a header that differs; each is
     named on stderr
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
  // The summary is lines of the probe's own, each page's and inventory's name escaped in it.
  const say = (message: string) => sayAs('edgeguard-probe')(masked(message));
  // Before the stack and the service: without a browser nothing can be probed.
  const executable = findBrowser(args.browser);
  const staging = { resolve: args.resolveGiven, insecure: args.insecure };
  const stagingNote = stagingText({ staging });
  if (stagingNote !== undefined) say(`${stagingNote}: for tests and staging, not a shopper's load`);
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
  });
  const evaluatedAt = new Date().toISOString();
  let loads;
  try {
    const urls = [...new Set(read.inventories.flatMap(({ inventory }) => inventory.pages.map(pageUrl)))];
    const loaded = await browser.load(urls);
    loads = new Map(urls.map((url, index) => [url, loaded[index]!]));
  } finally {
    await browser.close();
  }
  const report = probeReport({
    project: read.project,
    stack: read.stackName,
    toolVersion: PLUGIN_VERSION,
    browser: browser.version,
    staging,
    evaluatedAt,
    inventories: read.inventories.map((stackInventory, index) => ({
      name: stackInventory.name,
      urn: stackInventory.urn,
      zoneId: stackInventory.zoneId,
      pages: stackInventory.inventory.pages.map((page) =>
        judgePage(
          stackInventory,
          page,
          loads.get(pageUrl(page))!,
          reported[index]!,
          read.policies.filter((policy) => policy.zoneId === stackInventory.zoneId),
        ),
      ),
    })),
  });
  if (args.markdown !== undefined) writeOutput(args.markdown, masked(probeMarkdown(report)));
  if (args.json !== undefined) writeOutput(args.json, masked(`${JSON.stringify(report, null, 2)}\n`));
  say(probeSummaryText(report));
  return probeExitStatus(report);
}

runTool({ name: 'edgeguard-probe', usage: USAGE, parse, run: probe, failure: couldNotBeDone('probe', reasonOf) });
