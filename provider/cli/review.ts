#!/usr/bin/env node
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { pathInRepository } from '../stack/program-location';
import { renderMarkdown } from '../format/review-markdown';
import { DEFAULT_POLICY_CONFIG, reviewStack } from '../review/review-stack';
import { jsonText, shown } from '../format/escape';
import type * as sarif from '../format/sarif';
import { checkOneStdout, couldNotBeDone, relayEngine, runTool, sayAs, writeOutput } from './runner';

/**
 * `edgeguard-review`: the review report of a pull request (issue 9, item 3). Runs `pulumi preview`
 * of the project with EdgeGuard's policy pack and writes what it found as Markdown (`--markdown`,
 * for a CI job to post as a comment), JSON (`--json`) and the violations as SARIF (`--sarif`, for
 * code scanning). `-` for one of them means stdout (at most one: two documents on one stream could
not be read apart), and the preview's own output then goes to stderr.
 * Exit status: 0 no mandatory violation, 1 at least one, 2 the review could not be done (the
 * reason on stderr), 3 with `--fail-on-drift`: the refresh found a change made outside the stack
 * and there is no mandatory violation (a nightly job's failure; 1 and 2 win).
 */

const USAGE = `usage: edgeguard-review [--cwd DIR] [--stack NAME] [--refresh [--fail-on-drift]] [--markdown FILE] [--json FILE] [--sarif FILE] [--policy-config FILE]

Runs \`pulumi preview\` of the Pulumi project in DIR (default: the current folder) on stack NAME
(default: the selected stack) with EdgeGuard's policy pack, which reads the service with the
stack's edgeguard:* configuration, and writes the review:
  --markdown FILE       the review as Markdown, for a pull request comment (- for stdout)
  --json FILE           the same as JSON (- for stdout)
  --sarif FILE          the policy violations as SARIF 2.1.0, for code scanning (- for stdout)
  --refresh             refresh first, and report what changed outside the stack
  --fail-on-drift       with --refresh: exit 3 when something changed outside the stack
  --policy-config FILE  the pack's configuration: enforcement levels and accepted scripts
                        (default: ${DEFAULT_POLICY_CONFIG} in DIR, when it exists)
At most one output may be -.
Exit status: 0 no mandatory policy violation, 1 at least one, 2 the review could not be done,
3 drift found with --fail-on-drift and no mandatory policy violation.`;

interface Arguments {
  cwd: string;
  stack?: string;
  refresh: boolean;
  failOnDrift: boolean;
  markdown?: string;
  json?: string;
  sarif?: string;
  policyConfig?: string;
}

function parse(argv: string[]): Arguments | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      cwd: { type: 'string' },
      stack: { type: 'string' },
      refresh: { type: 'boolean', default: false },
      'fail-on-drift': { type: 'boolean', default: false },
      markdown: { type: 'string' },
      json: { type: 'string' },
      sarif: { type: 'string' },
      'policy-config': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  // Without a refresh there is nothing to fail on: a job that asks for it without one is misconfigured.
  if (values['fail-on-drift'] && !values.refresh) throw new Error('--fail-on-drift needs --refresh');
  checkOneStdout({ markdown: values.markdown, json: values.json, sarif: values.sarif });
  const cwd = path.resolve(values.cwd ?? '.');
  const fallbackConfig = path.join(cwd, DEFAULT_POLICY_CONFIG);
  const policyConfig = values['policy-config'] ?? (fs.existsSync(fallbackConfig) ? fallbackConfig : undefined);
  return {
    cwd,
    refresh: values.refresh,
    failOnDrift: values['fail-on-drift'],
    ...(values.stack !== undefined ? { stack: values.stack } : {}),
    ...(values.markdown !== undefined ? { markdown: values.markdown } : {}),
    ...(values.json !== undefined ? { json: values.json } : {}),
    ...(values.sarif !== undefined ? { sarif: values.sarif } : {}),
    ...(policyConfig !== undefined ? { policyConfig } : {}),
  };
}

async function review(args: Arguments): Promise<number> {
  const toStdout = [args.markdown, args.json, args.sarif].includes('-');
  const report = await reviewStack({
    workDir: args.cwd,
    ...(args.stack !== undefined ? { stackName: args.stack } : {}),
    refresh: args.refresh,
    failOnDrift: args.failOnDrift,
    ...(args.policyConfig !== undefined ? { policyConfig: args.policyConfig } : {}),
    onOutput: (text) => relayEngine(text, toStdout ? 'stderr' : 'stdout'),
  });
  if (args.markdown !== undefined) writeOutput(args.markdown, renderMarkdown(report));
  if (args.json !== undefined) writeOutput(args.json, jsonText(report));
  if (args.sarif !== undefined) {
    // The SARIF rules are the pack's policies, whose module loads `@pulumi/policy` and the Pulumi SDK
    // behind it (about a second of CPU): loaded only for a review that writes SARIF.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { reviewSarif } = require('../format/sarif') as typeof sarif;
    writeOutput(args.sarif, jsonText(reviewSarif(report, pathInRepository(args.cwd))));
  }
  const say = sayAs('edgeguard-review');
  if (report.exitCode === 2) say(`the review could not be done: ${shown(report.reason ?? '')}`);
  else {
    const mandatory = report.violations.filter((violation) => violation.level === 'mandatory').length;
    const drift = report.exitCode === 3 ? `; drift: ${report.drift!.map((row) => shown(row.name)).join(', ')}` : '';
    say(
      `${mandatory === 0 ? 'no mandatory policy violation' : `${mandatory} mandatory policy violation${mandatory === 1 ? '' : 's'}`}${drift}`,
    );
  }
  return report.exitCode;
}

runTool({ name: 'edgeguard-review', usage: USAGE, parse, run: review, failure: couldNotBeDone('review') });
