#!/usr/bin/env node
import * as path from 'node:path';
import { PLUGIN_VERSION } from '../plugin/version';
import { checkOneStdout, couldNotBeDone, runTool, sayAs, writeOutput } from './runner';
import { masked, parseStackFlags, readStack, reasonOf } from './stack-reading';
import { auditHtml } from '../format/audit-html';
import { jsonText } from '../format/escape';
import { auditMarkdown } from '../format/audit-markdown';
import { exitStatusOf, gatherEvidence } from '../payment/evidence';
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
  const values = parseStackFlags(argv, {
    markdown: { type: 'string' },
    json: { type: 'string' },
    html: { type: 'string' },
  });
  if (values.help) return 'help';
  const given = { markdown: values.markdown, json: values.json, html: values.html };
  checkOneStdout(given);
  const outputs = Object.fromEntries(Object.entries(given).filter(([, target]) => target !== undefined));
  return {
    cwd: path.resolve(values.cwd ?? '.'),
    ...(values.stack !== undefined ? { stack: values.stack } : {}),
    outputs: Object.keys(outputs).length > 0 ? outputs : { markdown: '-' },
  };
}

async function audit(args: Arguments): Promise<number> {
  const read = await readStack(args, 'auditing its payment pages');
  const evidence = await gatherEvidence(read.client, {
    project: read.project,
    stack: read.stackName,
    toolVersion: PLUGIN_VERSION,
    inventories: read.inventories,
    policies: read.policies,
  });
  const { markdown, json, html } = args.outputs;
  if (markdown !== undefined) writeOutput(markdown, auditMarkdown(evidence));
  if (json !== undefined) writeOutput(json, `${jsonText(evidence)}\n`);
  if (html !== undefined) writeOutput(html, auditHtml(evidence));
  sayAs('edgeguard-audit')(masked(summaryText(evidence)));
  return exitStatusOf(evidence);
}

runTool({ name: 'edgeguard-audit', usage: USAGE, parse, run: audit, failure: couldNotBeDone('audit', reasonOf) });
