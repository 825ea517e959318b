import * as path from 'node:path';
import { engineStack, failureOf, type EngineStack } from '../../helpers/engine';
import { DEFAULT_API_RATE_LIMIT } from '../../../emulator/core/rate-limit';
import { startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { until } from '../../helpers/until';

/**
 * `CustomHostnameValidation` through the real engine, on a program that publishes no record (the
 * test plays the customer's DNS): what a person watching `pulumi up` sees while it waits, a
 * timeout kept in the state as a partial failure, and the next `up` waiting again until the
 * record the message named is published. The tests share one stack and run in order.
 */

const TOKEN = 'e2e-validation-token-2d7e90b5';
const HOSTNAME = 'shop.customer-four.example';
const PROJECT = path.join(__dirname, 'projects', 'hostname-validation');
const CONFIG = 'edgeguard-e2e-hostname-validation';

let emu: TestEmulator;
let engine: EngineStack;

beforeAll(async () => {
  // The service's API limit: the reads' pace under it is part of what is shown.
  emu = await startTestEmulator({ tokens: [TOKEN], apiRateLimit: DEFAULT_API_RATE_LIMIT });
  engine = await engineStack({
    projectDir: PROJECT,
    emu,
    token: TOKEN,
    config: {
      [`${CONFIG}:zoneId`]: { value: ZONE_ID },
      [`${CONFIG}:hostname`]: { value: HOSTNAME },
      [`${CONFIG}:timeoutSeconds`]: { value: '3' },
    },
  });
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
  await emu?.close();
});

async function hostnameRecord(): Promise<{
  id: string;
  status: string;
  ownership_verification: { name: string; value: string };
}> {
  const found = (await emu.api('GET', `zones/${ZONE_ID}/custom_hostnames`, { query: { hostname: HOSTNAME } })).body
    .result as any[];
  expect(found).toHaveLength(1);
  return found[0];
}

/** The validation as the state records it: the backend's state file, which `pulumi stack export` would print. */
function recordedValidation(): Record<string, any> {
  const recorded = (JSON.parse(engine.stateText()).checkpoint.latest.resources as any[]).filter(
    (r) => r.type === 'pulumi-nodejs:dynamic/edgeguard:CustomHostnameValidation',
  );
  expect(recorded).toHaveLength(1);
  return recorded[0];
}

const PENDING = 'pending ("custom hostname does not CNAME to this zone.")';

test('a hostname still pending at the timeout fails the up saying which record to publish; the progress shows; the validation stays in the state', async () => {
  const failure = await failureOf(engine.up());
  const record = await hostnameRecord();
  const { name, value } = record.ownership_verification;
  expect(failure.message).toContain(
    `custom hostname "${HOSTNAME}" (${record.id} in zone ${ZONE_ID}) did not become active within 3 s (waited 3 s): its status is pending.`,
  );
  expect(failure.message).toContain(
    `To prove ownership, publish the TXT record ${name} with the value "${value}" (or a CNAME from ${HOSTNAME} to a hostname in the zone), then run pulumi up again`,
  );
  // While it waited, pulumi up showed how long and what the hostname's status was.
  const shown = engine.output.join('');
  expect(shown).toContain(
    `CustomHostnameValidation ${HOSTNAME}: waiting up to 3 s for it to become active; now ${PENDING}`,
  );
  // The reads spend at most a tenth of the API budget (1,200 per 300 s): 2.5 s apart at least, so none at 1 s.
  expect(shown).not.toContain(`CustomHostnameValidation ${HOSTNAME}: ${PENDING} after 1 s of at most 3 s`);
  expect(shown).toContain(`CustomHostnameValidation ${HOSTNAME}: ${PENDING} after 3 s of at most 3 s`);

  const validation = recordedValidation();
  expect(validation.id).toBe(record.id);
  expect(validation.outputs).toMatchObject({ status: 'pending', timeoutSeconds: 3, customHostnameId: record.id });
  expect(validation.initErrors).toEqual([expect.stringContaining('did not become active within 3 s')]);
}, 180_000);

test('the next up waits again while the record is published, shows how long it waited, and ends active with no edit', async () => {
  await engine.stack.setConfig(`${CONFIG}:timeoutSeconds`, { value: '60' });
  const record = await hostnameRecord();
  const mark = emu.mark();
  const up = engine.up();
  // The customer's DNS publishes the record once the validation has read the hostname twice: the
  // update's first read, and the first of its wait.
  const read = `GET /client/v4/zones/${ZONE_ID}/custom_hostnames/${record.id}`;
  await until(
    async () => (await emu.requests(mark)).filter((r) => `${r.method} ${r.path}` === read).length >= 2,
    60_000,
    () => 'the validation did not read the hostname twice within 60 s',
  );
  const { name, value } = record.ownership_verification;
  expect((await emu.control('POST', 'dns', { hostname: name, records: [{ type: 'TXT', value }] })).status).toBe(200);

  const result = await up;
  expect(result.summary.resourceChanges).toEqual({ same: 2, update: 1 });
  expect(result.stdout).toContain(
    `CustomHostnameValidation ${HOSTNAME}: waiting up to 60 s for it to become active; now ${PENDING}`,
  );
  expect(result.stdout).toMatch(
    new RegExp(
      `CustomHostnameValidation ${HOSTNAME.replace(/\./g, '\\.')}: active \\(certificate active\\) after \\d+ s of at most 60 s`,
    ),
  );
  expect(result.outputs.status!.value).toBe('active');
  expect(await emu.writesSince(mark)).toEqual([]);
  expect(recordedValidation().outputs).toMatchObject({
    status: 'active',
    sslStatus: 'active',
    timeoutSeconds: 60,
  });
  await engine.preview({ expectNoChanges: true });
}, 180_000);
