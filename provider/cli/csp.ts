#!/usr/bin/env node
import { validateHostname } from '../../rules/hostname';
import { MALICIOUS_SCRIPT_RULE } from '../../rules/malicious';
import { clientFrom } from '../client/shared';
import type { HttpClient } from '../client/http';
import { shown } from '../format/escape';
import { cspProgram, writePolicy } from '../program/csp';
import type { Detected } from '../impact/evaluate';
import { DETECTED_STATUSES } from '../client/page-security';
import { detectedPages } from '../impact/listed';
import { reviewPerPage } from '../impact/model';
import { dialectOf } from '../settings';
import { explainReadFailure, idFlag, parseFlags, settingsHelp, settingsSynopsis, UsageError } from './settings-flags';
import { runTool, sayAs, unexpectedFailure, writeProgram } from './runner';

/**
 * `edgeguard-csp`: writes the TypeScript Pulumi program declaring a first CSP policy for a host,
 * from the scripts and connections page security detected on it (`../program/csp.ts`). It
 * only reads from the service. The program goes to `--out` or stdout; a summary to stderr.
 *
 * Exit status: 0 written; 1 nothing written (a setting, the credentials or the service failed, or
 * the file could not be written); 2 bad usage.
 */

const EXIT = { ok: 0, failed: 1 } as const;

const USAGE = `usage: edgeguard-csp --zone ZONE_ID --host HOST [--action allow|log] [--out FILE]
${settingsSynopsis(21)}

Writes a TypeScript Pulumi program declaring one CspPolicy for HOST whose value allows every script
(script-src) and connection (connect-src) page security detected on HOST that is not malicious
(a script with ${MALICIOUS_SCRIPT_RULE}, a connection the service reports malicious), each as
tightly as its sources allow, and nothing malicious; a script on a host serving JSONP
endpoints or AngularJS by its full URL, and object-src 'none' and base-uri 'self', so that the
policy has no weakness of high severity. What it left out, and why, is in comments. It only reads
from the service.

  --zone ZONE_ID        the zone of HOST (32 hexadecimal characters)
  --host HOST           the hostname the policy covers (http.host eq "HOST")
  --action allow|log    allow blocks what the value does not allow, log reports it (default: log)
  --out FILE            where to write the program (default: stdout)
${settingsHelp()}

Exit status: 0 written; 1 nothing written (a setting, the credentials or the service failed);
2 bad usage.`;

const say = sayAs('edgeguard-csp');

/** The flags, or a {@link UsageError}. */
function parse(argv: string[]) {
  const flags = parseFlags(argv, {
    zone: { type: 'string' },
    host: { type: 'string' },
    action: { type: 'string' },
    out: { type: 'string' },
  });
  const text = flags.text;
  if (flags.help) return 'help';
  const zoneId = idFlag('zone', "the zone's id", text('zone'));
  if (zoneId === undefined) throw new UsageError('--zone is required: the id of the zone of the host');
  const hostText = text('host');
  if (hostText === undefined) throw new UsageError('--host is required: the hostname the policy covers');
  const host = validateHostname(hostText.toLowerCase());
  if (!host.ok) throw new UsageError(`--host ${host.error.message}`);
  const given = text('action') ?? 'log';
  const action = (['allow', 'log'] as const).find((known) => known === given);
  if (action === undefined) throw new UsageError(`--action must be allow or log, not ${JSON.stringify(given)}`);
  return {
    zoneId,
    host: host.value,
    action,
    out: text('out'),
    explicit: flags.explicit,
  };
}

/** Every script and connection detected on `host`, of both statuses, as the review lists them. */
async function detectedOn(http: HttpClient, zoneId: string, host: string) {
  const detected: { script: Detected[]; connection: Detected[] } = { script: [], connection: [] };
  for (const [kind, into] of [
    ['scripts', detected.script],
    ['connections', detected.connection],
  ] as const) {
    for (const status of DETECTED_STATUSES) {
      for await (const page of detectedPages(
        http,
        zoneId,
        kind,
        status,
        [host],
        reviewPerPage(dialectOf(http.settings)),
      ))
        into.push(...page.map((listed) => listed.item));
    }
  }
  return detected;
}

/** Does the command's work with its `options`; returns the exit status. */
async function run(options: Exclude<ReturnType<typeof parse>, 'help'>): Promise<number> {
  let detected;
  try {
    detected = await detectedOn(clientFrom({ explicit: options.explicit }), options.zoneId, options.host);
  } catch (error) {
    say(explainReadFailure(error, 'zone', options.zoneId));
    return EXIT.failed;
  }
  const policy = writePolicy(options.host, detected);
  const program = cspProgram(options, policy);
  if (!writeProgram(options.out, program, say)) return EXIT.failed;
  const { script, connection } = policy.counts;
  say(
    `wrote ${options.out ?? 'the program to stdout'}: a${options.action === 'allow' ? 'n allow' : ' log'} policy for ${options.host} allowing ${script.allowed} of ${script.detected} scripts and ${connection.allowed} of ${connection.detected} connections detected` +
      (policy.leftOut.length > 0
        ? `; left out (see the comments):\n${policy.leftOut.map((item) => `- ${item.kind} ${shown(item.url)}: ${shown(item.reason)}`).join('\n')}`
        : ''),
  );
  return EXIT.ok;
}

runTool({ name: 'edgeguard-csp', usage: USAGE, parse, run, failure: unexpectedFailure(EXIT.failed) });
