import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEMO } from '../../emulator/seed/demo';
import { engineStack, failureOf, REPO, type EngineStack } from '../helpers/engine';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * examples/custom-hostnames through the real engine, against a fresh demo emulator. The tests share
 * one stack and run in order: deploy, a hostname moved away through DNS, bad input, destroy.
 */

const TOKEN = 'e2e-example-hostnames-token-8c2f41d7';
const PROJECT = path.join(REPO, 'examples', 'custom-hostnames');
const HOSTNAMES = `zones/${DEMO.zoneId}/custom_hostnames`;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The defaults of the example's Pulumi.yaml. */
const HOSTNAME = 'www.customer-two.example';
const LONG_HOSTNAME = 'checkout.eu-west-1.storefront.customer-two-retailer-group.example';

let emu: TestEmulator;
let engine: EngineStack;

async function listHostnames(): Promise<Array<Record<string, any>>> {
  const listed = await emu.api('GET', HOSTNAMES);
  expect(listed.status).toBe(200);
  return listed.body.result;
}

/** Publishes the DNS records of `hostname` in the emulator's world (an empty list removes them). */
async function publishDns(hostname: string, records: Array<{ type: 'TXT' | 'CNAME'; value: string }>): Promise<void> {
  const published = await emu.control('POST', 'dns', { hostname, records });
  expect(published.status).toBe(200);
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

test('preview shows the creates, up creates both hostnames and waits for the long one, a second preview shows no changes', async () => {
  expect(LONG_HOSTNAME).toHaveLength(65);
  const preview = await engine.preview();
  expect(preview.changeSummary).toEqual({ create: 3 });

  const up = await engine.up();
  expect(up.summary.result).toBe('succeeded');
  expect(up.summary.resourceChanges).toEqual({ create: 3 });

  const live = new Map((await listHostnames()).map((record) => [record.hostname, record]));
  expect([...live.keys()].sort()).toEqual([LONG_HOSTNAME, HOSTNAME].sort());
  const customer = live.get(HOSTNAME)!;
  const long = live.get(LONG_HOSTNAME)!;
  expect({ status: customer.status, branding: customer.edgeguard_branding }).toEqual({
    status: 'pending',
    branding: false,
  });
  expect({ status: long.status, branding: long.edgeguard_branding, ssl: long.ssl.status }).toEqual({
    status: 'active',
    branding: true,
    ssl: 'active',
  });

  expect(up.outputs.customerHostname!.value).toEqual({
    id: customer.id,
    hostname: HOSTNAME,
    status: 'pending',
    certificateAuthority: 'google',
    ownershipTxtRecord: {
      name: `_edgeguard-custom-hostname.${HOSTNAME}`,
      value: customer.ownership_verification.value,
    },
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
  expect(again.changeSummary).toEqual({ same: 3 });
  expect(engine.stateText()).toContain(customer.id);
  expect(engine.stateText()).not.toContain(TOKEN);
}, 180_000);

test('a hostname whose DNS moved away shows at refresh, and the next up restarts its validation', async () => {
  const [customer] = (await listHostnames()).filter((record) => record.hostname === HOSTNAME);
  const { name, value } = customer!.ownership_verification;
  // The customer proves ownership: the hostname validates the next time it is read.
  await publishDns(name, [{ type: 'TXT', value }]);
  expect((await emu.api('GET', `${HOSTNAMES}/${customer!.id}`)).body.result.status).toBe('active');
  // Then points the hostname elsewhere and drops the TXT record: the service sees it moved.
  await publishDns(HOSTNAME, [{ type: 'CNAME', value: 'edge.other-provider.example' }]);
  await publishDns(name, []);
  expect((await emu.api('GET', `${HOSTNAMES}/${customer!.id}`)).body.result.status).toBe('moved');

  const refresh = await engine.refresh();
  expect(refresh.summary.resourceChanges).toEqual({ update: 1, same: 2 });
  const mark = emu.mark();
  const up = await engine.up();
  expect(up.summary.resourceChanges).toEqual({ update: 1, same: 2 });

  // The PATCH restarted validation; with no record pointing at the zone, ownership is unproven again.
  const writes = (await emu.requests(mark)).filter((entry) => WRITES.has(entry.method));
  expect(writes.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
    `PATCH /client/v4/${HOSTNAMES}/${customer!.id} 200`,
  ]);
  expect((await emu.api('GET', `${HOSTNAMES}/${customer!.id}`)).body.result.status).toBe('pending');
  expect(up.outputs.customerHostname!.value.status).toBe('pending');
  expect(up.outputs.longCustomerHostname!.value.status).toBe('active');
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

test('destroy deletes both hostnames; no output or state holds the token', async () => {
  const destroy = await engine.destroy();
  expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
  expect(await listHostnames()).toEqual([]);

  expect(engine.output.join('\n')).not.toContain(TOKEN);
  expect(engine.stateText()).not.toContain(TOKEN);
}, 180_000);
