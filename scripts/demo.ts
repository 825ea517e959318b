import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveSettings } from '../provider/settings';
import { DIALECTS, isDialect, type Dialect } from '../rules/dialect';
import { MALICIOUS_SCRIPT_RULE } from '../rules/malicious';
import { CommandError, LocalWorkspace, type OutputMap } from '@pulumi/pulumi/automation';
import { reviewFlagship } from './demo-review';
import { EMULATOR_CONTROL_URL } from '../provider/helpers/emulator-dns';
import { pulumiHome } from './pulumi-home';

/**
 * `npm run demo`: deploys the flagship program (the root Pulumi project) with the real engine.
 * - Against the local emulator, started here with durable state in `.edgeguard/emulator` (the
 *   demo world is loaded the first time) and stopped at the end, speaking the dialect of
 *   EDGEGUARD_DIALECT when it is set (the provider, the program and the review read the same
 *   variable, so both sides speak it); or, when EDGEGUARD_BASE_URL is set, against that service
 *   with the credentials of the environment.
 * - The stack `demo` lives in a local file backend in `.edgeguard/pulumi`, encrypted with a
 *   passphrase generated on the first run and kept there; its PULUMI_HOME there uses the plugin
 *   cache that scripts/setup-plugins.sh filled (`@pulumi/command`'s plugin).
 * - Against the emulator, the program gets the emulator's control API address, so that a command
 *   publishes the custom hostname's ownership record in the emulator's DNS and the hostname
 *   becomes active in the same `pulumi up`; against a real service it does not, and the hostname
 *   waits for the record to be published in the user's DNS.
 * Run twice, the second run changes nothing.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const STATE = path.join(ROOT, '.edgeguard');
const EMULATOR_TOKEN = 'dev-token';

interface Target {
  baseUrl: string;
  env: Record<string, string>;
  stop: () => Promise<void>;
}

/**
 * The dialect EDGEGUARD_DIALECT names, for the emulator's `--dialect`; undefined when it is not
 * set (the emulator's default, `spec`). A value that is no dialect is refused here, naming the
 * variable, before anything starts.
 */
function dialectOfEnvironment(): Dialect | undefined {
  const value = process.env.EDGEGUARD_DIALECT;
  if (value === undefined || value === '') return undefined;
  if (!isDialect(value))
    throw new Error(`EDGEGUARD_DIALECT: "${value}" is not a dialect (one of ${DIALECTS.join(', ')})`);
  return value;
}

async function startEmulator(): Promise<Target> {
  const dialect = dialectOfEnvironment();
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, 'dist', 'emulator', 'cli.js'),
      '--port',
      '0',
      '--data-dir',
      path.join(STATE, 'emulator'),
      ...(dialect !== undefined ? ['--dialect', dialect] : []),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (\S+)/.exec(seen);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}) before listening`)));
  });
  return {
    baseUrl,
    env: {
      EDGEGUARD_BASE_URL: baseUrl,
      EDGEGUARD_API_TOKEN: EMULATOR_TOKEN,
      [EMULATOR_CONTROL_URL]: `${new URL(baseUrl).origin}/__emulator`,
    },
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function realService(baseUrl: string): Target {
  // The settings table's own check: the address and the credentials the provider will need.
  try {
    resolveSettings();
  } catch (error) {
    throw new Error(`EDGEGUARD_BASE_URL is set, so the demo targets that service: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { baseUrl, env: {}, stop: () => Promise.resolve() };
}

/**
 * A passphrase for the stack's secrets, generated once and kept beside the state. A new one makes
 * the salt that the stack file (`Pulumi.demo.yaml`, ignored by git) kept for the old one useless,
 * and the engine would refuse the passphrase: the salt goes, the rest of the stack file stays.
 */
function passphraseFile(): string {
  const file = path.join(STATE, 'pulumi', 'passphrase');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, randomBytes(24).toString('base64url'), { mode: 0o600 });
    const stackFile = path.join(ROOT, 'Pulumi.demo.yaml');
    if (fs.existsSync(stackFile)) {
      const kept = fs
        .readFileSync(stackFile, 'utf8')
        .split('\n')
        .filter((line) => !line.startsWith('encryptionsalt:'));
      fs.writeFileSync(stackFile, kept.join('\n'));
    }
  }
  return file;
}

/** The flagship's stack outputs (flagship.ts), as the demo describes them. */
interface FlagshipOutputs {
  zone: string;
  pageSecurityEnabled: boolean;
  cspPolicies: Record<'storefront' | 'checkout', { action: string; value: string }>;
  customHostname: {
    hostname: string;
    status: string;
    certificateAuthority: string;
    ownershipTxtRecord: { name: string; value: string; published: boolean };
  };
  healthNotificationId: string;
  poolsCovered: number;
  legacyEmailMigration: { poolsSeen: number; poolsCleared: number; removedEmails?: Record<string, string> };
  maliciousScripts?: string[];
  paymentPageScripts?: string[];
}

function describe(outputs: OutputMap): string {
  const {
    zone,
    pageSecurityEnabled,
    cspPolicies: policies,
    customHostname: hostname,
    healthNotificationId,
    poolsCovered,
    legacyEmailMigration: migration,
    maliciousScripts,
    paymentPageScripts,
  } = Object.fromEntries(
    Object.entries(outputs).map(([key, output]) => [key, output.value as unknown]),
  ) as unknown as FlagshipOutputs;
  const malicious = maliciousScripts ?? [];
  return [
    `Zone ${zone}: page security ${pageSecurityEnabled ? 'on' : 'off'}.`,
    `CSP policies:`,
    `  storefront (${policies.storefront.action}: report scripts outside the list): ${policies.storefront.value}`,
    `  checkout   (${policies.checkout.action}: block scripts outside the list): ${policies.checkout.value}`,
    `Checkout's payment pages (the ScriptInventory checkout-payment-scripts; unchanged = pinned and the same content):`,
    ...(paymentPageScripts ?? []).map((line) => `  ${line}`),
    `Custom hostname ${hostname.hostname}: ${hostname.status} (certificate authority ${hostname.certificateAuthority}).`,
    hostname.ownershipTxtRecord.published
      ? `  Its ownership record TXT ${hostname.ownershipTxtRecord.name} = "${hostname.ownershipTxtRecord.value}" was published in the emulator's DNS by the command customer-one-ownership-record, and the validation waited until it was active.`
      : `  To validate it, publish TXT ${hostname.ownershipTxtRecord.name} = "${hostname.ownershipTxtRecord.value}" in the customer's DNS (docs/guides/custom-hostnames.md: your DNS provider's record resource in place of the emulator's command).`,
    `Health notification ${healthNotificationId} covers ${poolsCovered} pools.`,
    `Legacy pool e-mails: ${migration.poolsSeen} pools seen, ${migration.poolsCleared} cleared by this run, ${Object.keys(migration.removedEmails ?? {}).length} addresses removed in all.`,
    malicious.length > 0
      ? `Malicious scripts (${MALICIOUS_SCRIPT_RULE}), to review:\n${malicious.map((m) => `  ${m}`).join('\n')}`
      : 'No malicious scripts detected.',
  ].join('\n');
}

/** Whether `pulumi up` ran, whose errors the engine has printed (a failure before it printed nothing). */
let upRan = false;

async function main(): Promise<void> {
  const external = process.env.EDGEGUARD_BASE_URL;
  const target = external ? realService(external) : await startEmulator();
  try {
    console.log(
      external
        ? `Target: ${target.baseUrl}`
        : `Target: the local emulator at ${target.baseUrl} (state in .edgeguard/emulator${process.env.EDGEGUARD_DIALECT ? `, dialect ${process.env.EDGEGUARD_DIALECT}` : ''})`,
    );
    const backend = path.join(STATE, 'pulumi', 'state');
    fs.mkdirSync(backend, { recursive: true });
    const stack = await LocalWorkspace.createOrSelectStack(
      { stackName: 'demo', workDir: ROOT },
      {
        envVars: {
          ...target.env,
          PULUMI_BACKEND_URL: `file://${backend}`,
          PULUMI_CONFIG_PASSPHRASE_FILE: passphraseFile(),
          PULUMI_HOME: pulumiHome(ROOT, path.join(STATE, 'pulumi', 'home')),
          PULUMI_SKIP_UPDATE_CHECK: 'true',
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
          // `npm run demo` type-checks the program with tsc before this runs, so ts-node need not check
          // it again at each run of the program (`up`, then the review's preview): 14.6 s → 11.2 to 12.1 s.
          PULUMI_NODEJS_TRANSPILE_ONLY: 'true',
        },
      },
    );
    console.log('Running pulumi up on the flagship program (stack "demo")...\n');
    // The engine's own listing of the outputs is left out: the account below gives them, and after a
    // failed update the engine would list the previous run's outputs as if they were this one's.
    upRan = true;
    const result = await stack.up({ onOutput: (text) => process.stdout.write(text), suppressOutputs: true });
    const changes = Object.entries(result.summary.resourceChanges ?? {}).filter(([kind]) => kind !== 'same');
    console.log(
      `\n${changes.length === 0 ? 'Nothing changed: the service already matches the program.' : `Changes: ${changes.map(([kind, n]) => `${n} ${kind}`).join(', ')}.`}\n`,
    );
    console.log(describe(result.outputs));
    if ((await reviewFlagship(stack)) !== 0) process.exitCode = 1;
  } finally {
    await target.stop();
  }
}

main().catch((error: unknown) => {
  // A failed `pulumi up` has printed its errors above already, one per failing resource or
  // program step; its CommandError repeats the engine's whole output, so it is not printed again.
  console.error(
    error instanceof CommandError && upRan
      ? '\ndemo: pulumi up failed; its errors are above.'
      : `demo: ${(error as Error).message}`,
  );
  process.exit(1);
});
