#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { clientFrom } from '../clients';
import { AuthenticationError, EdgeGuardError, NotFoundError, PermissionDeniedError } from '../client/errors';
import { readAccount, readZone, type Live } from '../import/live';
import { importedProgram, type ImportedProgram } from '../import/program';
import { SETTINGS, settingLabel, withSettingHint, type SettingName } from '../settings';
import { hexIdSchema } from '../runtime/check';

/**
 * `edgeguard-import`: writes the TypeScript Pulumi program that takes a live zone (and account)
 * under management, every object declared as it is with `adoptId` set (see `../import/program.ts`).
 * It only reads from the service. The program goes to `--out` or stdout; what was declared, left
 * out or could not be read goes to stderr.
 *
 * Exit status: 0 every object is declared; 1 nothing written (settings, access or the service
 * failed); 2 bad usage; 3 the program is written but some objects are left out (as comments in it,
 * and listed on stderr).
 */

const EXIT = { ok: 0, failed: 1, usage: 2, leftOut: 3 } as const;

/** A setting's flag: its name in kebab case (`baseUrl` → `--base-url`). */
const flagOf = (name: SettingName) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
/**
 * The settings this command takes as flags: those of the table that reading uses. The pacing of
 * custom hostname creates does not apply to a command that creates nothing.
 */
const SETTING_NAMES = (Object.keys(SETTINGS) as SettingName[]).filter(
  (name) => name !== 'issuanceLimit' && name !== 'issuanceWindowSeconds',
);

const USAGE = `usage: edgeguard-import --zone ZONE_ID [--account ACCOUNT_ID] [--out FILE]
                        ${SETTING_NAMES.map((name) => `[--${flagOf(name)} VALUE]`)
                          .join(' ')
                          .replace(/(.{1,76})(?: |$)/g, '$1\n                        ')
                          .trimEnd()}

Writes a TypeScript Pulumi program declaring the zone's page security setting, CSP policies and
custom hostnames, and the account's load-balancing health notifications, each as it is, with
adoptId set: its first pulumi up adopts them, creating nothing. Pools that still have a legacy
e-mail are listed in a comment. It only reads from the service.

  --zone ZONE_ID        the zone to read (32 hexadecimal characters)
  --account ACCOUNT_ID  the account to read too (its notifications and pools)
  --out FILE            where to write the program (default: stdout)
${SETTING_NAMES.map((name) => `  ${`--${flagOf(name)} VALUE`.padEnd(22)}${SETTINGS[name].about} (else ${SETTINGS[name].env})`).join('\n')}

Each setting is read from its flag, else its environment variable; prefer the environment for
credentials, which a command line shows to other users of the machine.

Exit status: 0 every object is declared; 1 nothing written (a setting, the credentials or the
service failed); 2 bad usage; 3 written, but some objects are left out (as comments, listed on stderr).`;

function say(message: string): void {
  process.stderr.write(`edgeguard-import: ${message}\n`);
}

class UsageError extends EdgeGuardError {
  override name = 'UsageError';
}

/** The flags, or a {@link UsageError}. */
function parse(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        zone: { type: 'string' },
        account: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(SETTING_NAMES.map((name) => [flagOf(name), { type: 'string' as const }])),
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const text = (key: string) => (typeof values[key] === 'string' ? values[key] : undefined);
  if (values.help === true) return { help: true as const };
  const id = (flag: string, what: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const checked = hexIdSchema(what).safeParse(value);
    if (!checked.success) throw new UsageError(`--${flag} ${checked.error.issues[0]!.message}`);
    return checked.data;
  };
  const zoneId = id('zone', "the zone's id", text('zone'));
  if (zoneId === undefined) throw new UsageError('--zone is required: the id of the zone to read');
  return {
    help: false as const,
    zoneId,
    accountId: id('account', "the account's id", text('account')),
    out: text('out'),
    explicit: Object.fromEntries(
      SETTING_NAMES.flatMap((name) => (text(flagOf(name)) !== undefined ? [[name, text(flagOf(name))!]] : [])),
    ) as Partial<Record<SettingName, string>>,
  };
}

/** A settings message with each setting named by its flag, the way this command takes it. */
function withFlags(message: string): string {
  return SETTING_NAMES.reduce(
    (text, name) => text.split(settingLabel(name)).join(`--${flagOf(name)} (or ${SETTINGS[name].env})`),
    message,
  );
}

/** What a failed read means for the user: which flag or setting to check. */
function explain(error: unknown, scope: 'zone' | 'account', id: string): string {
  withSettingHint(error);
  const message = withFlags(error instanceof Error ? error.message : String(error));
  const flag = scope === 'zone' ? '--zone' : '--account';
  if (error instanceof NotFoundError) return `${scope} ${id} was not found: check ${flag}. (${message})`;
  if (error instanceof AuthenticationError) {
    return `the service refused the credentials: check --api-token (or ${SETTINGS.apiToken.env}), or the e-mail and API key. (${message})`;
  }
  if (error instanceof PermissionDeniedError) {
    return `the credentials may not read ${scope} ${id} (page security needs an API token with access to the zone). (${message})`;
  }
  return message;
}

async function read(zoneId: string, accountId: string | undefined, explicit: Partial<Record<SettingName, string>>) {
  const http = clientFrom({ explicit });
  let zone;
  try {
    zone = await readZone(http, zoneId);
  } catch (error) {
    throw new EdgeGuardError(explain(error, 'zone', zoneId), { cause: error });
  }
  if (accountId === undefined) return { zone } satisfies Live;
  try {
    return { zone, account: await readAccount(http, accountId) } satisfies Live;
  } catch (error) {
    throw new EdgeGuardError(explain(error, 'account', accountId), { cause: error });
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

/** Runs the command with `argv` (without node and the script); returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  let options;
  try {
    options = parse(argv);
  } catch (error) {
    say(`${(error as Error).message}\n${USAGE}`);
    return EXIT.usage;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  let program: ImportedProgram;
  try {
    program = importedProgram(await read(options.zoneId, options.accountId, options.explicit));
  } catch (error) {
    say(withFlags((error as Error).message));
    return EXIT.failed;
  }
  if (options.out !== undefined) {
    try {
      writeFileSync(options.out, program.text);
    } catch (error) {
      say(`cannot write --out ${options.out}: ${(error as Error).message}`);
      return EXIT.failed;
    }
  } else {
    process.stdout.write(program.text);
  }
  say(summary(program, options.out ?? 'the program to stdout'));
  if (program.leftOut.length === 0) return EXIT.ok;
  say(
    `${program.leftOut.length} object${program.leftOut.length === 1 ? ' is' : 's are'} left out of the program (described in comments in it):\n` +
      program.leftOut.map((item) => `- ${item.what}: ${item.reasons.join('; ')}`).join('\n'),
  );
  return EXIT.leftOut;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      say(`unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exitCode = EXIT.failed;
    },
  );
}
