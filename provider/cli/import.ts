#!/usr/bin/env node
import { clientFrom } from '../client/shared';
import { EdgeGuardError } from '../client/errors';
import { readAccount, readZone, type Live } from '../import/live';
import { importedProgram, type ImportedProgram } from '../program/import';
import type { SettingName } from '../settings';
import {
  explainReadFailure,
  idFlag,
  parseFlags,
  settingsHelp,
  settingsSynopsis,
  UsageError,
  withFlags,
} from './settings-flags';
import { runTool, sayAs, unexpectedFailure, writeProgram } from './runner';

/**
 * `edgeguard-import`: writes the TypeScript Pulumi program that takes a live zone (and account)
 * under management, every object declared as it is with `adoptId` set (see `../program/import.ts`).
 * It only reads from the service. The program goes to `--out` or stdout; what was declared, left
 * out or could not be read goes to stderr.
 *
 * Exit status: 0 every object is declared; 1 nothing written (settings, access or the service
 * failed); 2 bad usage; 3 the program is written but some objects are left out (as comments in it,
 * and listed on stderr).
 */

const EXIT = { ok: 0, failed: 1, leftOut: 3 } as const;

const USAGE = `usage: edgeguard-import --zone ZONE_ID [--account ACCOUNT_ID] [--out FILE]
${settingsSynopsis(24)}

Writes a TypeScript Pulumi program declaring the zone's page security setting, CSP policies and
custom hostnames, and the account's load-balancing health notifications, each as it is, with
adoptId set: its first pulumi up adopts them, creating nothing. Pools that still have a legacy
e-mail are listed in a comment. It only reads from the service.

  --zone ZONE_ID        the zone to read (32 hexadecimal characters)
  --account ACCOUNT_ID  the account to read too (its notifications and pools)
  --out FILE            where to write the program (default: stdout)
${settingsHelp()}

Exit status: 0 every object is declared; 1 nothing written (a setting, the credentials or the
service failed); 2 bad usage; 3 written, but some objects are left out (as comments, listed on stderr).`;

const say = sayAs('edgeguard-import');

/** The flags, or a {@link UsageError}. */
function parse(argv: string[]) {
  const flags = parseFlags(argv, {
    zone: { type: 'string' },
    account: { type: 'string' },
    out: { type: 'string' },
  });
  const text = flags.text;
  if (flags.help) return 'help';
  const zoneId = idFlag('zone', "the zone's id", text('zone'));
  if (zoneId === undefined) throw new UsageError('--zone is required: the id of the zone to read');
  return {
    zoneId,
    accountId: idFlag('account', "the account's id", text('account')),
    out: text('out'),
    explicit: flags.explicit,
  };
}

async function read(zoneId: string, accountId: string | undefined, explicit: Partial<Record<SettingName, string>>) {
  const http = clientFrom({ explicit });
  let zone;
  try {
    zone = await readZone(http, zoneId);
  } catch (error) {
    throw new EdgeGuardError(explainReadFailure(error, 'zone', zoneId), { cause: error });
  }
  if (accountId === undefined) return { zone } satisfies Live;
  try {
    return { zone, account: await readAccount(http, accountId) } satisfies Live;
  } catch (error) {
    throw new EdgeGuardError(explainReadFailure(error, 'account', accountId), { cause: error });
  }
}

function summary(program: ImportedProgram, where: string): string {
  const declared = Object.entries(program.declared).map(([type, count]) => `${count} ${type}`);
  const pools =
    program.legacyPools > 0
      ? `; ${program.legacyPools} pool${program.legacyPools === 1 ? '' : 's'} with a legacy e-mail noted in a comment`
      : '';
  return `wrote ${where}: ${declared.join(', ')} to adopt${pools}`;
}

/** Does the command's work with its `options`; returns the exit status. */
async function run(options: Exclude<ReturnType<typeof parse>, 'help'>): Promise<number> {
  let program: ImportedProgram;
  try {
    program = importedProgram(await read(options.zoneId, options.accountId, options.explicit));
  } catch (error) {
    say(withFlags((error as Error).message));
    return EXIT.failed;
  }
  if (!writeProgram(options.out, program.text, say)) return EXIT.failed;
  say(summary(program, options.out ?? 'the program to stdout'));
  if (program.leftOut.length === 0) return EXIT.ok;
  say(
    `${program.leftOut.length} object${program.leftOut.length === 1 ? ' is' : 's are'} left out of the program (described in comments in it):\n` +
      program.leftOut.map((item) => `- ${item.what}: ${item.reasons.join('; ')}`).join('\n'),
  );
  return EXIT.leftOut;
}

runTool({ name: 'edgeguard-import', usage: USAGE, parse, run, failure: unexpectedFailure(EXIT.failed) });
