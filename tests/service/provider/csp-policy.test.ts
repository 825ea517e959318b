import { randomBytes } from 'node:crypto';
import { NotFoundError } from '../../../provider/client/errors';
import { changedProperties, type CspPolicyInputs } from '../../../provider/runtime/csp-policy';
import { provider } from '../../../provider/dynamic/runtime/csp-policy';
import { ACCOUNT_ID, startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { CSP_POLICY as GOOD } from '../../helpers/inputs';
import { configureProvider } from '../../helpers/provider';

/**
 * `CspPolicy`: every provider method against the emulator, with the requests each one makes. Each
 * test works in a zone of its own. (Check and diff alone: tests/unit/provider/csp-policy.test.ts.)
 */

describe('against the emulator', () => {
  let emu: TestEmulator;

  beforeAll(async () => {
    emu = await startTestEmulator();
    await configureProvider(emu);
  });
  afterAll(async () => emu.close());
  afterEach(async () => {
    await emu.control('POST', 'faults', {});
  });

  async function newZone(): Promise<string> {
    const id = randomBytes(16).toString('hex');
    const reply = await emu.control('POST', 'seed', {
      zones: [{ id, name: `z${id.slice(0, 8)}.example`, account_id: ACCOUNT_ID }],
    });
    expect(reply.status).toBe(200);
    return id;
  }

  const policiesPath = (zone: string) => `/client/v4/zones/${zone}/page_security/policies`;
  const calls = async (since: number) => (await emu.requests(since)).map((r) => `${r.method} ${r.path} ${r.status}`);
  const inputs = (zoneId: string, patch: Partial<CspPolicyInputs> = {}): CspPolicyInputs => ({
    ...GOOD,
    action: 'allow',
    enabled: true,
    zoneId,
    ...patch,
  });

  async function livePolicies(zone: string): Promise<Array<Record<string, unknown>>> {
    const reply = await emu.api('GET', `zones/${zone}/page_security/policies`);
    expect(reply.status).toBe(200);
    return reply.body.result;
  }

  test('create makes one POST, sends enabled as a string and returns the policy as outputs', async () => {
    const zone = await newZone();
    const mark = emu.mark();
    const created = await provider.create(inputs(zone, { enabled: false }));
    expect(await calls(mark)).toEqual([`POST ${policiesPath(zone)} 200`]);
    expect(created.id).toMatch(/^[0-9a-f]{32}$/);
    expect(created.outs).toEqual({ policyId: created.id, ...inputs(zone, { enabled: false }) });
    expect(await livePolicies(zone)).toEqual([
      {
        id: created.id,
        description: GOOD.description,
        action: 'allow',
        expression: GOOD.expression,
        enabled: 'false',
        value: GOOD.value,
      },
    ]);
  });

  test('read makes one GET and returns the live fields as props and inputs', async () => {
    const zone = await newZone();
    const { id, outs } = await provider.create(inputs(zone));
    const mark = emu.mark();
    const read = await provider.read(id, outs);
    expect(await calls(mark)).toEqual([`GET ${policiesPath(zone)}/${id} 200`]);
    expect(read).toEqual({ id, props: outs, inputs: inputs(zone) });
  });

  test('a change made through the API shows as drift on read, and the diff against the program sees it', async () => {
    const zone = await newZone();
    const { id, outs } = await provider.create(inputs(zone));
    const changedValue = "script-src 'self' evil.example.org";
    const put = await emu.api('PUT', `zones/${zone}/page_security/policies/${id}`, {
      body: {
        description: GOOD.description,
        action: 'log',
        expression: GOOD.expression,
        enabled: 'false',
        value: changedValue,
      },
    });
    expect(put.status).toBe(200);
    const read = await provider.read(id, outs);
    expect(read.inputs).toEqual(inputs(zone, { action: 'log', enabled: false, value: changedValue }));
    expect(read.props).toEqual({
      policyId: id,
      ...inputs(zone, { action: 'log', enabled: false, value: changedValue }),
    });
    expect(changedProperties(read.props, inputs(zone))).toEqual(['action', 'value', 'enabled']);
  });

  test('update makes one PUT with the full body and returns the policy as read back', async () => {
    const zone = await newZone();
    const { id, outs } = await provider.create(inputs(zone));
    const news = inputs(zone, { description: 'log only', action: 'log', enabled: false, value: "script-src 'self'" });
    const mark = emu.mark();
    const updated = await provider.update(id, outs, news);
    expect(await calls(mark)).toEqual([`PUT ${policiesPath(zone)}/${id} 200`]);
    expect(updated.outs).toEqual({ policyId: id, ...news });
    expect(await livePolicies(zone)).toEqual([
      {
        id,
        description: 'log only',
        action: 'log',
        expression: GOOD.expression,
        enabled: 'false',
        value: "script-src 'self'",
      },
    ]);
  });

  test('delete removes the policy; a second delete of the gone policy succeeds; read of it says gone', async () => {
    const zone = await newZone();
    const { id, outs } = await provider.create(inputs(zone));
    const mark = emu.mark();
    await provider.delete(id, outs);
    await provider.delete(id, outs);
    expect(await calls(mark)).toEqual([
      `DELETE ${policiesPath(zone)}/${id} 200`,
      `DELETE ${policiesPath(zone)}/${id} 404`,
    ]);
    expect(await livePolicies(zone)).toEqual([]);
    await expect(provider.read(id, outs)).resolves.toEqual({});
  });

  test('a create whose response is lost after the service applied it adopts that policy instead of making a second', async () => {
    const zone = await newZone();
    const faults = await emu.control('POST', 'faults', {
      reset_rate: 1,
      methods: ['POST'],
      paths: ['zones/*/page_security/policies'],
    });
    expect(faults.status).toBe(200);
    const mark = emu.mark();
    const created = await provider.create(inputs(zone));
    expect(await calls(mark)).toEqual([`POST ${policiesPath(zone)} null`, `GET ${policiesPath(zone)} 200`]);
    const live = await livePolicies(zone);
    expect(live).toHaveLength(1);
    expect(created.id).toBe(live[0]!.id);
    expect(created.outs).toEqual({ policyId: live[0]!.id, ...inputs(zone) });
  });

  test('recovery does not adopt a policy that differs in a field', async () => {
    const zone = await newZone();
    const other = await emu.api('POST', `zones/${zone}/page_security/policies`, {
      body: { ...GOOD, description: 'someone else', enabled: 'true' },
    });
    expect(other.status).toBe(200);
    await emu.control('POST', 'faults', {
      reset_rate: 1,
      methods: ['POST'],
      paths: ['zones/*/page_security/policies'],
    });
    const created = await provider.create(inputs(zone));
    expect(created.id).not.toBe(other.body.result.id);
    expect((await livePolicies(zone)).map((p) => p.description)).toEqual(['someone else', GOOD.description]);
  });

  test('read without a zoneId in props says what to pass', async () => {
    await expect(provider.read('f'.repeat(32), {})).rejects.toThrow(
      `CspPolicy ${'f'.repeat(32)}: its zone is not known; pass zoneId in the resource's arguments (with get, in its state argument) to read it`,
    );
  });

  test('create in an unknown zone fails with an error naming the operation and the status', async () => {
    const missing = randomBytes(16).toString('hex');
    const attempt = provider.create(inputs(missing));
    await expect(attempt).rejects.toBeInstanceOf(NotFoundError);
    await expect(attempt).rejects.toThrow(
      `create CSP policy (POST zones/${missing}/page_security/policies) failed: HTTP 404`,
    );
  });
});
