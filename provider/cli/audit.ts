#!/usr/bin/env node
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CommandError } from '@pulumi/pulumi/automation';
import { clientFrom } from '../client/shared';
import { PLUGIN_VERSION } from '../plugin/version';
import { openStack } from '../stack/open';
import { runStackCommand, writeOutput } from './stack-command';
import { SETTINGS, withSettingHint } from '../settings';
import { auditHtml } from '../format/audit-html';
import { jsonText } from '../format/escape';
import { auditMarkdown } from '../format/audit-markdown';
import { exitStatusOf, gatherEvidence } from '../payment/evidence';
import { auditedResources } from '../stack/inventories';
import { ALL_CLEAR, MALICIOUS_WHY, summaryText } from '../format/audit-wording';

/**
 * `edgeguard-audit`: the evidence an assessor asks for under PCI DSS 4.0 requirements 6.4.3 and
 * 11.6.1 (issue 25, item 4), from a stack's `ScriptInventory` resources and what page security
 * reports now. It reads the stack's state and configuration through the Automation API and the
 * service with the stack's `edgeguard:*` settings; it runs no preview and changes nothing.
 */

const USAGE = `usage: edgeguard-audit [--cwd DIR] [--stack NAME] [--markdown FILE] [--json FILE] [--html FILE]

Audits the payment pages of every ScriptInventory in stack NAME (default: the selected stack) of
the Pulumi project in DIR (default: the current folder): for each page, the CSP headers in force
and every script page security saw there, with first and last seen, the entry and justification
that authorize it, and its integrity. Reads the stack's state and its edgeguard:* configuration
(secrets decrypted; EDGEGUARD_* variables as fallback) and the service; changes nothing.
  --markdown FILE   the evidence as Markdown (- for stdout; the default when no output is given)
  --json FILE       the evidence as JSON, the shape of provider/payment/evidence-schema.ts (- for stdout)
  --html FILE       the evidence as one self-contained HTML page that prints on A4 (- for stdout)
At most one output may be -.
Exit status:
  0  every script seen on the payment pages is ${ALL_CLEAR};
     unpinned scripts (authorized by an entry without a hash) are allowed: their content is
     not compared
  1  a script is unauthorized (no entry authorizes it) or changed (its live hash is not the
     pinned one); or, whatever its integrity, a script is
     ${MALICIOUS_WHY};
     each is named on stderr
  2  the audit could not be done (no stack, no ScriptInventory in it, settings, the service):
     the reason on stderr`;

interface Arguments {
  cwd: string;
  stack?: string;
  outputs: { markdown?: string; json?: string; html?: string };
}

function parse(argv: string[]): Arguments | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      cwd: { type: 'string' },
      stack: { type: 'string' },
      markdown: { type: 'string' },
      json: { type: 'string' },
      html: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const given = { markdown: values.markdown, json: values.json, html: values.html };
  const toStdout = Object.entries(given).filter(([, target]) => target === '-');
  if (toStdout.length > 1)
    throw new Error(`only one output can go to stdout; ${toStdout.map(([name]) => `--${name}`).join(' and ')} are -`);
  const outputs = Object.fromEntries(Object.entries(given).filter(([, target]) => target !== undefined));
  return {
    cwd: path.resolve(values.cwd ?? '.'),
    ...(values.stack !== undefined ? { stack: values.stack } : {}),
    outputs: Object.keys(outputs).length > 0 ? outputs : { markdown: '-' },
  };
}

/**
 * Every credential the audit may hold: the stack's secret configuration values and the secret
 * settings of the environment. A message from the engine or the service that echoes one (a
 * failing command line, say) is printed with it masked.
 */
const credentials = new Set<string>(
  Object.values(SETTINGS).flatMap((setting) => {
    const value = 'secret' in setting ? process.env[setting.env]?.trim() : undefined;
    return value ? [value] : [];
  }),
);

function masked(text: string): string {
  let out = text;
  for (const secret of credentials) out = out.split(secret).join('[secret]');
  return out;
}

/**
 * Why the audit could not be done, in a line: what a failed engine command said last as its error
 * (`no stack named 'x' found`), else the end of its output; else the error's message.
 */
function reasonOf(error: unknown): string {
  withSettingHint(error);
  if (error instanceof CommandError) {
    const said = [...error.message.matchAll(/^error: (.+)$/gm)].at(-1)?.[1];
    return `pulumi: ${said ?? error.message.trim().split('\n').slice(-5).join(' ').slice(-1000)}`;
  }
  return error instanceof Error ? error.message : String(error);
}

async function audit(args: Arguments): Promise<number> {
  const { stack, stackName, settings } = await openStack({
    workDir: args.cwd,
    ...(args.stack !== undefined ? { stackName: args.stack } : {}),
  });
  const config = await stack.getAllConfig();
  for (const { value, secret } of Object.values(config)) if (secret && value.trim() !== '') credentials.add(value);
  const { inventories, policies } = auditedResources(await stack.exportStack());
  if (inventories.length === 0)
    throw new Error(
      `stack ${stackName} of project ${settings.name} holds no ScriptInventory: deploy one (pulumi up) before auditing its payment pages`,
    );
  const client = clientFrom({ config: (key) => config[`edgeguard:${key}`]?.value });
  const evidence = await gatherEvidence(client, {
    project: settings.name,
    stack: stackName,
    toolVersion: PLUGIN_VERSION,
    inventories,
    policies,
  });
  const { markdown, json, html } = args.outputs;
  if (markdown !== undefined) writeOutput(markdown, auditMarkdown(evidence));
  if (json !== undefined) writeOutput(json, `${jsonText(evidence)}\n`);
  if (html !== undefined) writeOutput(html, auditHtml(evidence));
  process.stderr.write(`edgeguard-audit: ${masked(summaryText(evidence))}\n`);
  return exitStatusOf(evidence);
}

runStackCommand({
  name: 'edgeguard-audit',
  work: 'audit',
  usage: USAGE,
  parse,
  run: audit,
  reasonOf: (error) => masked(reasonOf(error)),
});
