import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from './repo';

/**
 * Microsoft's SARIF Multitool (`@microsoft/sarif-multitool`, a devDependency: its Linux package is
 * a self-contained .NET executable), which checks a SARIF file against the SARIF standard's rules
 * and, with `--rule-kind Gh`, against what GitHub's code scanning requires.
 */
const MULTITOOL = path.join(REPO, 'node_modules', '@microsoft', 'sarif-multitool-linux', 'Sarif.Multitool');

/** A finding of the Multitool: its level, rule and message. */
export interface MultitoolFinding {
  level: string;
  ruleId: string;
  message: string;
}

/**
 * The errors and warnings the Multitool finds in `file`, with the SARIF rules and then GitHub's;
 * its outputs go to `dir`. Notes are left out: SARIF2006 ("URI not reachable") is one on a machine
 * without the internet, and the others are suggestions (rule ids in PascalCase, code snippets).
 */
export function multitoolFindings(file: string, dir: string): MultitoolFinding[] {
  if (!fs.existsSync(MULTITOOL)) throw new Error(`${MULTITOOL} is missing: npm install brings it`);
  const findings: MultitoolFinding[] = [];
  for (const ruleKind of [[], ['--rule-kind', 'Gh']]) {
    const output = path.join(dir, `multitool-${ruleKind.length === 0 ? 'sarif' : 'gh'}.sarif`);
    const run = spawnSync(
      MULTITOOL,
      ['validate', '--level', 'Error;Warning;Note', ...ruleKind, '--log', 'ForceOverwrite', '-o', output, file],
      // The machine has no ICU, which .NET needs unless told to use the invariant culture.
      { env: { ...process.env, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: '1' }, encoding: 'utf8' },
    );
    if (run.status !== 0 || !fs.existsSync(output))
      throw new Error(`the SARIF Multitool failed (${run.status}): ${run.stdout}${run.stderr}`);
    const log = JSON.parse(fs.readFileSync(output, 'utf8')) as {
      runs: Array<{
        results?: Array<{
          level?: string;
          ruleId: string;
          message: { text?: string; id?: string; arguments?: string[] };
        }>;
      }>;
    };
    for (const result of log.runs.flatMap((one) => one.results ?? [])) {
      // SARIF's default level is `warning`.
      const level = result.level ?? 'warning';
      const { text, id, arguments: args = [] } = result.message;
      if (level === 'error' || level === 'warning')
        findings.push({ level, ruleId: result.ruleId, message: text ?? `${id ?? ''}: ${args.join('; ')}` });
    }
  }
  return findings;
}
