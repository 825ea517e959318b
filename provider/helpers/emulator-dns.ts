import type * as pulumi from '@pulumi/pulumi';

/**
 * A DNS record published in the local emulator's world, for a `command.local.Command` of
 * `@pulumi/command`: the stand-in, against the emulator, for the record resource of a real DNS
 * provider (a custom hostname's ownership TXT record, a CNAME, a CAA record). Its create publishes
 * the record through the emulator's control API (`POST /__emulator/dns`) and its delete removes it.
 *
 * Where the control API is, and its admin token when it has one, are read by the command from the
 * environment when it runs ({@link EMULATOR_CONTROL_URL}, {@link EMULATOR_ADMIN_TOKEN}; the demo and
 * the tests set them): they are not inputs of the resource, so neither is kept in the state, and a
 * control API on a new port is no change. They are not settings of the provider, which never
 * speaks to the control API.
 */

/** The environment variable with the control API's address, such as `http://127.0.0.1:8787/__emulator`. */
export const EMULATOR_CONTROL_URL = 'EDGEGUARD_EMULATOR_CONTROL_URL';
/** The environment variable with the control API's admin token (`--admin-token`), when it has one. */
export const EMULATOR_ADMIN_TOKEN = 'EDGEGUARD_EMULATOR_ADMIN_TOKEN';

/** One DNS record. */
export interface EmulatorDnsRecord {
  /** The owner name, such as a custom hostname's `ownershipRecordName`. */
  name: pulumi.Input<string>;
  type: 'TXT' | 'CNAME' | 'CAA';
  /** The record's value: the TXT text, the CNAME target, or the CAA record (`0 issue "pki.goog"`). */
  value: pulumi.Input<string>;
}

/** Whether this run can publish DNS in the emulator: its control API's address is in the environment. */
export function emulatorDnsAvailable(): boolean {
  return Boolean(process.env[EMULATOR_CONTROL_URL]);
}

// Run by `node -e` with the action as its argument; the record comes from the command's environment.
// It replaces what the emulator holds at the record's name (an empty list removes it), so one
// command should own each name.
const SCRIPT = [
  `const url = process.env.${EMULATOR_CONTROL_URL};`,
  `if (!url) { console.error("${EMULATOR_CONTROL_URL} is not set: it must hold the emulator control API address, such as http://127.0.0.1:8787/__emulator"); process.exit(1); }`,
  `const token = process.env.${EMULATOR_ADMIN_TOKEN};`,
  `const { DNS_NAME: name, DNS_TYPE: type, DNS_VALUE: value } = process.env;`,
  `const publish = process.argv[1] === "publish";`,
  `const body = JSON.stringify({ hostname: name, records: publish ? [{ type, value }] : [] });`,
  `const headers = { "content-type": "application/json", ...(token ? { authorization: "Bearer " + token } : {}) };`,
  `fetch(url + "/dns", { method: "POST", headers, body }).then(async (reply) => {`,
  `  if (!reply.ok) { console.error("POST " + url + "/dns: HTTP " + reply.status + " " + (await reply.text())); process.exit(1); }`,
  `  console.log(publish ? "published " + type + " " + name + " " + JSON.stringify(value) + " in the emulator DNS" : "removed the records at " + name + " from the emulator DNS");`,
  `}, (error) => { console.error("POST " + url + "/dns: " + error.message); process.exit(1); });`,
].join(' ');

/** Single-quotes `text` for the POSIX shell that runs the command. */
function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The arguments of a `command.local.Command` that publishes `record` in the emulator's DNS on
 * create and removes it on delete. Another value republishes it (create runs again); another name
 * replaces the command, so the old name's record is removed.
 */
export function emulatorDnsRecordCommand(record: EmulatorDnsRecord): {
  create: string;
  delete: string;
  environment: Record<string, pulumi.Input<string>>;
  triggers: pulumi.Input<unknown>[];
} {
  const run = (action: 'publish' | 'remove') => `node -e ${shellQuoted(SCRIPT)} ${action}`;
  return {
    create: run('publish'),
    delete: run('remove'),
    environment: { DNS_NAME: record.name, DNS_TYPE: record.type, DNS_VALUE: record.value },
    triggers: [record.name],
  };
}
