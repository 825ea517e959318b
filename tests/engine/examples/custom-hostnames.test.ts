import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEMO } from '../../../emulator/seed/demo';
import { engineStack, failureOf, type EngineStack } from '../../helpers/engine';
import { REPO } from '../../helpers/repo';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

/**
 * examples/custom-hostnames through the real engine, against a fresh demo emulator. The tests share
 * one stack and run in order: deploy (two hostnames through hostname -> ownership record ->
 * validation, one of them stopped by its domain's CAA record; one long hostname waiting by
 * itself), the CAA record fixed, a hostname moved away through DNS and back, bad input, destroy.
 */

const TOKEN = 'e2e-example-hostnames-token-8c2f41d7';
const PROJECT = path.join(REPO, 'examples', 'custom-hostnames');
const HOSTNAMES = `zones/${DEMO.zoneId}/custom_hostnames`;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The defaults of the example's Pulumi.yaml. */
const HOSTNAME = 'www.customer-two.example';
const STRICT_HOSTNAME = 'shop.customer-three.example';
const LONG_HOSTNAME = 'checkout.eu-west-1.storefront.customer-two-retailer-group.example';

let emu: TestEmulator;
let engine: EngineStack;

async function listHostnames(): Promise<Array<Record<string, any>>> {
  const listed = await emu.api('GET', HOSTNAMES);
  expect(listed.status).toBe(200);
  return listed.body.result;
}

async function liveHostname(hostname: string): Promise<Record<string, any>> {
  const found = (await listHostnames()).filter((record) => record.hostname === hostname);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** Publishes the DNS records of `hostname` in the emulator's world (an empty list removes them). */
async function publishDns(hostname: string, records: Array<{ type: 'TXT' | 'CNAME'; value: string }>): Promise<void> {
  const published = await emu.control('POST', 'dns', { hostname, records });
  expect(published.status).toBe(200);
}

/** What the emulator's DNS holds, as `TYPE name value` lines, sorted. */
async function dnsRecords(): Promise<string[]> {
  const reply = await emu.control('GET', 'dns');
  expect(reply.status).toBe(200);
  return (reply.body.result as Array<{ records: Array<{ type: string; name: string; value: string }> }>)
    .flatMap((entry) => entry.records.map((r) => `${r.type} ${r.name} ${r.value}`))
    .sort();
}

/** `METHOD path status` of the API writes after `mark`. */
async function writesSince(mark: number): Promise<string[]> {
  return (await emu.requests(mark))
    .filter((entry) => WRITES.has(entry.method))
    .map((entry) => `${entry.method} ${entry.path} ${entry.status}`);
}

/**
 * A resource's outputs as the state records them: the backend's state file, which holds what `pulumi
 * stack export` would print, read without running the CLI.
 */
function recorded(name: string): Record<string, any> {
  const state = JSON.parse(engine.stateText());
  const resource = (state.checkpoint.latest.resources as any[]).find((r) => String(r.urn).endsWith(`::${name}`));
  expect(resource).toBeDefined();
  return resource.outputs;
}

beforeAll(async () => {
  emu = await startTestEmulator({ seed: 'demo', fixture: false, tokens: [TOKEN] });
  engine = await engineStack({ projectDir: PROJECT, emu, token: TOKEN });
  // What the customer's DNS provider would hold: the long hostname already points into the zone,
  // so it validates as soon as it exists and the program's wait for `active` succeeds.
  await publishDns(LONG_HOSTNAME, [{ type: 'CNAME', value: DEMO.zoneName }]);
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

test('up takes the first hostname to active through its published record and validation, and fails on the CAA record of the second, saying which record to add', async () => {
  expect(LONG_HOSTNAME).toHaveLength(65);
  const preview = await engine.preview();
  expect(preview.changeSummary).toEqual({ create: 9 });

  const failure = await failureOf(engine.up());
  const customer = await liveHostname(HOSTNAME);
  const strict = await liveHostname(STRICT_HOSTNAME);
  const long = await liveHostname(LONG_HOSTNAME);
  expect(failure.message).toContain(
    `custom hostname "${STRICT_HOSTNAME}" (${strict.id} in zone ${DEMO.zoneId}) has status caa_error: ` +
      "the domain's CAA records do not permit the certificate authority in use, google. " +
      `Add a CAA record 0 issue "pki.goog" to the domain that holds the CAA records of ${STRICT_HOSTNAME} ` +
      "(or set the CustomHostname's ssl.certificateAuthority to a certificate authority those records permit), " +
      'then run pulumi up again: the update restarts validation. ' +
      'The service reports: "CAA records for customer-three.example permit neither google (pki.goog) nor lets_encrypt (letsencrypt.org)',
  );
  // Only the strict hostname's validation failed; everything else was made.
  expect(failure.message).toMatch(/\+ 8 created/);

  expect({ status: customer.status, ssl: customer.ssl.status, branding: customer.edgeguard_branding }).toEqual({
    status: 'active',
    ssl: 'active',
    branding: false,
  });
  expect({ status: long.status, branding: long.edgeguard_branding, ssl: long.ssl.status }).toEqual({
    status: 'active',
    branding: true,
    ssl: 'active',
  });
  expect(strict.status).toBe('caa_error');
  // The three commands published their records; the CNAME is the test's.
  expect(await dnsRecords()).toEqual(
    [
      `TXT ${customer.ownership_verification.name} ${customer.ownership_verification.value}`,
      `TXT ${strict.ownership_verification.name} ${strict.ownership_verification.value}`,
      'CAA customer-three.example 0 issue "digicert.com"',
      `CNAME ${LONG_HOSTNAME} ${DEMO.zoneName}`,
    ].sort(),
  );
  // The failed validation is kept in the state with the hostname's status, for the next up.
  expect(recorded('strict-customer-validation')).toMatchObject({
    customHostnameId: strict.id,
    status: 'caa_error',
  });
  expect(recorded('customer-validation')).toMatchObject({ customHostnameId: customer.id, status: 'active' });
  expect(engine.stateText()).not.toContain(TOKEN);
}, 180_000);

test('with the CAA record the message names, the next up finishes the validation, and a second preview shows no changes', async () => {
  await engine.stack.setConfig('edgeguard-example-custom-hostnames:caaRecord', { value: '0 issue "pki.goog"' });
  const mark = emu.mark();
  const up = await engine.up();
  // The CAA command published the new record, then the validation found the hostname active.
  expect(up.summary.resourceChanges).toEqual({ update: 2, same: 7 });
  expect(await writesSince(mark)).toEqual([]);
  expect(await dnsRecords()).toContain('CAA customer-three.example 0 issue "pki.goog"');

  const customer = await liveHostname(HOSTNAME);
  const strict = await liveHostname(STRICT_HOSTNAME);
  const long = await liveHostname(LONG_HOSTNAME);
  expect(strict.status).toBe('active');
  expect(up.outputs.customerHostname!.value).toEqual({
    id: customer.id,
    hostname: HOSTNAME,
    status: 'active',
    certificateAuthority: 'google',
    ownershipTxtRecord: {
      name: `_edgeguard-custom-hostname.${HOSTNAME}`,
      value: customer.ownership_verification.value,
    },
  });
  expect(up.outputs.strictCustomerHostname!.value).toEqual({
    id: strict.id,
    hostname: STRICT_HOSTNAME,
    status: 'active',
    certificateAuthority: 'google',
  });
  expect(up.outputs.longCustomerHostname!.value).toEqual({
    id: long.id,
    hostname: LONG_HOSTNAME,
    length: 65,
    branding: true,
    status: 'active',
    sslStatus: 'active',
  });

  const again = await engine.preview({ expectNoChanges: true });
  expect(again.changeSummary).toEqual({ same: 9 });
}, 180_000);

test('a hostname whose DNS moved away shows at refresh, and the next up revalidates it with one PATCH', async () => {
  const customer = await liveHostname(HOSTNAME);
  // The customer points the hostname at another provider: the service sees it moved.
  await publishDns(HOSTNAME, [{ type: 'CNAME', value: 'edge.other-provider.example' }]);
  expect((await liveHostname(HOSTNAME)).status).toBe('moved');

  const refresh = await engine.refresh();
  expect(refresh.summary.resourceChanges).toEqual({ update: 2, same: 7 });
  expect(recorded('customer-validation')).toMatchObject({ status: 'moved' });

  // Back into the zone; `moved` stays until an edit restarts validation (spec 3).
  await publishDns(HOSTNAME, []);
  expect((await liveHostname(HOSTNAME)).status).toBe('moved');
  const mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ update: 2, same: 7 });
  // The hostname's update restarts validation; its validation, after it, finds it active.
  expect(await writesSince(mark)).toEqual([`PATCH /client/v4/${HOSTNAMES}/${customer.id} 200`]);
  expect((await liveHostname(HOSTNAME)).status).toBe('active');
  expect(up.outputs.customerHostname!.value.status).toBe('active');
}, 180_000);

test('a 65-character hostname without branding fails the preview naming 1469 and branding, and writes nothing', async () => {
  const file = path.join(engine.workDir, 'index.ts');
  const program = fs.readFileSync(file, 'utf8');
  expect(program.split('branding: true,')).toHaveLength(2);
  fs.writeFileSync(file, program.replace('branding: true,', 'branding: false,'));
  const mark = emu.mark();
  try {
    const failure = await failureOf(engine.preview());
    expect(failure).toBeInstanceOf(Error);
    const message = failure.message;
    expect(message).toContain('long-customer');
    expect(message).toContain(
      `"${LONG_HOSTNAME}" is 65 characters long, over the 64-character limit of a certificate Common Name (RFC 5280)`,
    );
    expect(message).toContain('error 1469');
    expect(message).toContain('Set branding to true');
  } finally {
    fs.writeFileSync(file, program);
  }
  expect((await emu.requests(mark)).filter((entry) => WRITES.has(entry.method))).toEqual([]);
  expect((await listHostnames()).find((record) => record.hostname === LONG_HOSTNAME)?.edgeguard_branding).toBe(true);
}, 180_000);

test('destroy deletes the hostnames and the records the commands published; no output or state holds the token', async () => {
  const destroy = await engine.destroy();
  expect(destroy.summary.resourceChanges).toEqual({ delete: 9 });
  expect(await listHostnames()).toEqual([]);
  expect(await dnsRecords()).toEqual([`CNAME ${LONG_HOSTNAME} ${DEMO.zoneName}`]);

  expect(engine.output.join('\n')).not.toContain(TOKEN);
  expect(engine.stateText()).not.toContain(TOKEN);
}, 180_000);
