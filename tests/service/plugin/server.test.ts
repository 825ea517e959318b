import * as fs from 'node:fs';
import * as path from 'node:path';
import { Empty } from 'google-protobuf/google/protobuf/empty_pb';
import type * as grpc from '@grpc/grpc-js';
import * as proto from '@pulumi/pulumi/proto/provider_pb';
import * as statusProto from '@pulumi/pulumi/proto/status_pb';
import type { Struct } from 'google-protobuf/google/protobuf/struct_pb';
import { ACCOUNT_ID, startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { REPO } from '../../helpers/repo';
import { secret, startPlugin, struct, UNKNOWN, type TestPlugin } from '../../helpers/plugin';

/**
 * The provider plugin over its real gRPC interface, against the emulator: configuration, check,
 * the detailed diff of each resource, create, read with the id alone (an import), update, delete,
 * secrets in and out, unknowns at preview, and two instances with their own pacing.
 */

const SECRET_SIG = '4dabf18193072939515e22adb298388d';
const POLICY = {
  zoneId: ZONE_ID,
  description: 'storefront',
  action: 'log',
  expression: 'http.host eq "shop.example.com"',
  value: "script-src 'self' cdn.example.com",
};
const POOL_ID = 'b0000000000000000000000000000001';

function urn(type: string, name = 'r'): string {
  return `urn:pulumi:test::plugin::edgeguard:index:${type}::${name}`;
}

function checkRequest(type: string, news: Record<string, unknown>): proto.CheckRequest {
  return new proto.CheckRequest().setUrn(urn(type)).setType(`edgeguard:index:${type}`).setNews(struct(news));
}

function diffRequest(type: string, olds: Record<string, unknown>, news: Record<string, unknown>): proto.DiffRequest {
  return new proto.DiffRequest()
    .setUrn(urn(type))
    .setType(`edgeguard:index:${type}`)
    .setId('x')
    .setOlds(struct(olds))
    .setNews(struct(news));
}

function js(value: Struct | undefined): Record<string, unknown> {
  return value?.toJavaScript() ?? {};
}

/** The detailed diff as `name: KIND` entries, sorted. */
function detailed(response: proto.DiffResponse): string[] {
  const kinds = Object.fromEntries(Object.entries(proto.PropertyDiff.Kind).map(([name, value]) => [value, name]));
  return response
    .getDetaileddiffMap()
    .toArray()
    .map(([name, diff]) => `${name}: ${kinds[(diff as unknown as unknown[])[0] as number] ?? 'ADD'}`)
    .sort();
}

describe('the provider plugin over gRPC', () => {
  let emu: TestEmulator;
  let plugin: TestPlugin;

  async function configure(target: TestPlugin, config: Record<string, unknown>): Promise<void> {
    await target.call('configure', new proto.ConfigureRequest().setArgs(struct(config)));
  }

  async function check(type: string, news: Record<string, unknown>): Promise<proto.CheckResponse> {
    return plugin.call('check', checkRequest(type, news));
  }

  async function checked(type: string, news: Record<string, unknown>): Promise<Struct> {
    const response = await check(type, news);
    expect(response.getFailuresList().map((f) => f.toObject())).toEqual([]);
    return response.getInputs()!;
  }

  async function create(type: string, inputs: Struct): Promise<proto.CreateResponse> {
    return plugin.call(
      'create',
      new proto.CreateRequest().setUrn(urn(type)).setType(`edgeguard:index:${type}`).setProperties(inputs),
    );
  }

  async function read(
    type: string,
    id: string,
    properties: Record<string, unknown> = {},
    target: TestPlugin = plugin,
  ): Promise<proto.ReadResponse> {
    return target.call(
      'read',
      new proto.ReadRequest()
        .setUrn(urn(type))
        .setType(`edgeguard:index:${type}`)
        .setId(id)
        .setProperties(struct(properties)),
    );
  }

  async function diff(
    type: string,
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<proto.DiffResponse> {
    return plugin.call('diff', diffRequest(type, olds, news));
  }

  async function remove(type: string, id: string, properties: Struct): Promise<void> {
    await plugin.call(
      'delete',
      new proto.DeleteRequest()
        .setUrn(urn(type))
        .setType(`edgeguard:index:${type}`)
        .setId(id)
        .setProperties(properties),
    );
  }

  beforeAll(async () => {
    emu = await startTestEmulator();
    await emu.seed({
      pools: [{ id: POOL_ID, account_id: ACCOUNT_ID, name: 'origin-a', notification_email: 'ops@example.com' }],
    });
    plugin = await startPlugin();
    await configure(plugin, { baseUrl: emu.baseUrl, apiToken: secret(TEST_TOKEN) });
  });

  afterAll(async () => {
    await plugin?.close();
    await emu?.close();
  });

  test('GetPluginInfo answers the package version; GetSchema the generated schema file', async () => {
    const info = await plugin.call('getPluginInfo', new Empty());
    expect(info.getVersion()).toBe(JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version);
    const file = path.join(REPO, 'dist', 'plugin', 'schema.json');
    const written = !fs.existsSync(file);
    if (written) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify({ name: 'edgeguard', version: 'from-the-test' }));
    }
    try {
      const schema = await plugin.call('getSchema', new proto.GetSchemaRequest());
      expect(schema.getSchema()).toBe(fs.readFileSync(file, 'utf8'));
    } finally {
      if (written) fs.rmSync(file);
    }
  });

  describe('CheckConfig', () => {
    async function failures(news: Record<string, unknown>): Promise<Array<{ property: string; reason: string }>> {
      const response = await plugin.call(
        'checkConfig',
        new proto.CheckRequest().setUrn(urn('Provider')).setNews(struct(news)),
      );
      return response.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() }));
    }

    test('stack config strings and JSON-typed provider inputs both pass', async () => {
      expect(
        await failures({ baseUrl: emu.baseUrl, apiToken: 't', issuanceLimit: '5', issuanceWindowSeconds: '30' }),
      ).toEqual([]);
      expect(
        await failures({ baseUrl: emu.baseUrl, apiToken: secret('t'), issuanceLimit: 5, issuanceWindowSeconds: 30 }),
      ).toEqual([]);
    });

    test('a malformed setting fails naming its key, with the settings table message', async () => {
      expect(await failures({ baseUrl: 'ftp://x/v4', apiToken: 't' })).toEqual([
        {
          property: 'baseUrl',
          reason: 'edgeguard:baseUrl (or EDGEGUARD_BASE_URL) "ftp://x/v4" must be an http(s) URL',
        },
      ]);
      expect(await failures({ baseUrl: emu.baseUrl, apiToken: 't', issuanceLimit: 0 })).toEqual([
        expect.objectContaining({
          property: 'issuanceLimit',
          reason: expect.stringContaining('must be a whole number of at least 1'),
        }),
      ]);
    });

    test('missing settings fail naming the key, and a credential is never echoed', async () => {
      expect(await failures({ apiToken: 't' })).toEqual([expect.objectContaining({ property: 'baseUrl' })]);
      expect(await failures({ baseUrl: emu.baseUrl })).toEqual([expect.objectContaining({ property: 'apiToken' })]);
      const pair = await failures({ baseUrl: emu.baseUrl, apiKey: secret('key-9f8e7d-not-shown') });
      expect(pair).toEqual([expect.objectContaining({ property: 'apiEmail' })]);
      expect(JSON.stringify(pair)).not.toContain('key-9f8e7d-not-shown');
    });

    test('the environment is the fallback, as for the dynamic resources', async () => {
      const fromEnv = await startPlugin({ EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: 't' });
      try {
        const response = await fromEnv.call('checkConfig', new proto.CheckRequest().setNews(struct({})));
        expect(response.getFailuresList()).toEqual([]);
      } finally {
        await fromEnv.close();
      }
    });

    test('the credentials come back marked secret, given plain or secret', async () => {
      const response = await plugin.call(
        'checkConfig',
        new proto.CheckRequest().setNews(
          struct({ baseUrl: emu.baseUrl, apiToken: 'plain-token', vendor: 'edgeguard' }),
        ),
      );
      expect(js(response.getInputs())).toEqual({
        baseUrl: emu.baseUrl,
        apiToken: secret('plain-token'),
        vendor: 'edgeguard',
      });
    });

    test('DiffConfig: a new address or token changes the provider in place, replacing nothing', async () => {
      const response = await plugin.call(
        'diffConfig',
        new proto.DiffRequest()
          .setOldInputs(struct({ baseUrl: emu.baseUrl, apiToken: secret('a') }))
          .setOlds(struct({}))
          .setNews(struct({ baseUrl: `${emu.baseUrl}/`.replace(/\/$/, ''), apiToken: secret('b') })),
      );
      expect(response.getChanges()).toBe(proto.DiffResponse.DiffChanges.DIFF_SOME);
      expect(response.getReplacesList()).toEqual([]);
      expect(detailed(response)).toEqual(['apiToken: UPDATE']);
    });
  });

  describe('Check', () => {
    test('a failure names the property and says why; nothing is sent', async () => {
      const mark = emu.mark();
      const response = await check('CspPolicy', { ...POLICY, value: "script-src 'sel" });
      expect(response.getFailuresList().map((f) => f.getProperty())).toEqual(['value']);
      expect(response.getFailuresList()[0]!.getReason()).toMatch(/'sel/);
      expect(await emu.requests(mark)).toEqual([]);
    });

    test('defaults are applied and ids lowercased', async () => {
      expect(js(await checked('CspPolicy', { ...POLICY, zoneId: ZONE_ID.toUpperCase() }))).toEqual({
        ...POLICY,
        enabled: true,
      });
    });

    test('unknown values at preview pass, and a secret input stays secret', async () => {
      const response = await check('CspPolicy', { ...POLICY, zoneId: UNKNOWN, description: secret('hidden') });
      expect(response.getFailuresList()).toEqual([]);
      expect(js(response.getInputs())).toMatchObject({ zoneId: UNKNOWN, description: secret('hidden') });
    });
  });

  describe('Diff: the detailed diff of each resource', () => {
    test('CspPolicy: a reordered, repeated, recased value and another expression text for the same host are no change', async () => {
      const olds = { ...POLICY, enabled: true, policyId: 'p' };
      const same = await diff('CspPolicy', olds, {
        ...POLICY,
        enabled: true,
        expression: 'http.host  eq  "SHOP.example.com"',
        value: "script-src cdn.example.com 'self' CDN.example.com",
      });
      expect(same.getChanges()).toBe(proto.DiffResponse.DiffChanges.DIFF_NONE);
      expect(detailed(same)).toEqual([]);
      const moved = await diff('CspPolicy', olds, {
        ...POLICY,
        enabled: false,
        zoneId: 'c0000000000000000000000000000002',
      });
      expect(moved.getChanges()).toBe(proto.DiffResponse.DiffChanges.DIFF_SOME);
      expect(moved.getReplacesList()).toEqual(['zoneId']);
      expect(moved.getHasdetaileddiff()).toBe(true);
      expect(detailed(moved)).toEqual(['enabled: UPDATE', 'zoneId: UPDATE_REPLACE']);
    });

    test('PageSecuritySetting', async () => {
      const olds = { zoneId: ZONE_ID, enabled: false, enabledBeforeCreate: false };
      expect(detailed(await diff('PageSecuritySetting', olds, { zoneId: ZONE_ID, enabled: true }))).toEqual([
        'enabled: UPDATE',
      ]);
      expect(detailed(await diff('PageSecuritySetting', olds, { zoneId: ZONE_ID, enabled: false }))).toEqual([]);
    });

    test('CustomHostname: replacing properties, and a `moved` hostname named on its status', async () => {
      const inputs = {
        zoneId: ZONE_ID,
        hostname: 'shop.customer.net',
        ssl: { method: 'txt', type: 'dv', certificateAuthority: '' },
        branding: false,
        waitForActive: false,
        waitTimeoutSeconds: 600,
      };
      const olds = { ...inputs, customHostnameId: 'h', status: 'active' };
      const renamed = await diff('CustomHostname', olds, {
        ...inputs,
        hostname: 'www.customer.net',
        ssl: { ...inputs.ssl, method: 'http' },
      });
      expect(renamed.getReplacesList()).toEqual(['hostname']);
      expect(detailed(renamed)).toEqual(['hostname: UPDATE_REPLACE', 'ssl: UPDATE']);
      const moved = await diff('CustomHostname', { ...olds, status: 'moved' }, inputs);
      expect(detailed(moved)).toEqual(['status: UPDATE']);
    });

    test('CustomHostnameValidation', async () => {
      const inputs = { zoneId: ZONE_ID, customHostnameId: 'e0000000000000000000000000000001', timeoutSeconds: 600 };
      const other = await diff(
        'CustomHostnameValidation',
        { ...inputs, status: 'active' },
        { ...inputs, customHostnameId: 'e0000000000000000000000000000002' },
      );
      expect(other.getReplacesList()).toEqual(['customHostnameId']);
      expect(detailed(other)).toContain('customHostnameId: UPDATE_REPLACE');
    });

    test('HealthNotification: pools in another order are no change; another account replaces', async () => {
      const inputs = {
        accountId: ACCOUNT_ID,
        name: 'n',
        description: '',
        enabled: true,
        poolIds: ['b1', 'b2'],
        newHealth: ['Unhealthy'],
      };
      expect(detailed(await diff('HealthNotification', inputs, { ...inputs, poolIds: ['b2', 'b1'] }))).toEqual([]);
      const moved = await diff('HealthNotification', inputs, {
        ...inputs,
        accountId: 'a0000000000000000000000000000002',
        name: 'm',
      });
      expect(moved.getReplacesList()).toEqual(['accountId']);
      expect(detailed(moved)).toEqual(['accountId: UPDATE_REPLACE', 'name: UPDATE']);
    });

    test('PoolNotificationMigration: pools carrying an e-mail again are named on poolsWithEmail', async () => {
      const inputs = { accountId: ACCOUNT_ID, perPage: 1000, maxRounds: 3 };
      expect(detailed(await diff('PoolNotificationMigration', { ...inputs, poolsWithEmail: 0 }, inputs))).toEqual([]);
      expect(detailed(await diff('PoolNotificationMigration', { ...inputs, poolsWithEmail: 2 }, inputs))).toEqual([
        'poolsWithEmail: UPDATE',
      ]);
    });

    test('a value unknown at preview is a change', async () => {
      const olds = { ...POLICY, enabled: true, policyId: 'p' };
      expect(detailed(await diff('CspPolicy', olds, { ...POLICY, enabled: true, value: UNKNOWN }))).toEqual([
        'value: UPDATE',
      ]);
    });
  });

  describe('create, read with the id alone, update, delete', () => {
    test('CspPolicy: the id is <zoneId>/<policyId>; a preview calls nothing; a secret input stays secret', async () => {
      const inputs = await checked('CspPolicy', { ...POLICY, description: secret('secret description') });

      const mark = emu.mark();
      const preview = await plugin.call(
        'create',
        new proto.CreateRequest()
          .setUrn(urn('CspPolicy'))
          .setType('edgeguard:index:CspPolicy')
          .setProperties(inputs)
          .setPreview(true),
      );
      expect(preview.getId()).toBe('');
      expect(await emu.requests(mark)).toEqual([]);

      const created = await create('CspPolicy', inputs);
      const [zone, policyId] = created.getId().split('/');
      expect(zone).toBe(ZONE_ID);
      expect(policyId).toMatch(/^[0-9a-f]{32}$/);
      expect(js(created.getProperties())).toEqual({
        ...POLICY,
        description: secret('secret description'),
        enabled: true,
        policyId,
      });

      // Import: the id alone; reads and writes nothing but the state, and the inputs are what a program declaring the policy passes.
      const before = emu.mark();
      const imported = await read('CspPolicy', created.getId().toUpperCase());
      expect(imported.getId()).toBe(created.getId());
      expect((await emu.writesSince(before)).length).toBe(0);
      const declared = await checked('CspPolicy', { ...POLICY, description: 'secret description' });
      expect(js(imported.getInputs())).toEqual(js(declared));
      const noChange = await diff('CspPolicy', js(imported.getProperties()), js(declared));
      expect(noChange.getChanges()).toBe(proto.DiffResponse.DiffChanges.DIFF_NONE);

      // Refresh keeps the secret.
      const refreshed = await read('CspPolicy', created.getId(), js(created.getProperties()));
      expect(js(refreshed.getProperties()).description).toEqual(secret('secret description'));

      const updated = await plugin.call(
        'update',
        new proto.UpdateRequest()
          .setUrn(urn('CspPolicy'))
          .setType('edgeguard:index:CspPolicy')
          .setId(created.getId())
          .setOlds(created.getProperties())
          .setNews(await checked('CspPolicy', { ...POLICY, action: 'allow' })),
      );
      expect(js(updated.getProperties())).toMatchObject({ action: 'allow', policyId });
      expect((await emu.api('GET', `zones/${ZONE_ID}/page_security/policies/${policyId}`)).body.result.action).toBe(
        'allow',
      );

      await remove('CspPolicy', created.getId(), updated.getProperties()!);
      expect((await emu.api('GET', `zones/${ZONE_ID}/page_security/policies/${policyId}`)).status).toBe(404);
      // Gone: a read answers no id, and a second delete succeeds.
      expect((await read('CspPolicy', created.getId(), js(updated.getProperties()))).getId()).toBe('');
      await remove('CspPolicy', created.getId(), updated.getProperties()!);
    });

    test('a malformed id is refused with a message that shows the form', async () => {
      await expect(read('CspPolicy', ZONE_ID)).rejects.toThrow(
        `CspPolicy id "${ZONE_ID}" is not of the form <zoneId>/<policyId> (32 hexadecimal characters each`,
      );
      await expect(read('HealthNotification', 'x/y')).rejects.toThrow('is not of the form <accountId>/<policyId>');
      await expect(read('PageSecuritySetting', `${ZONE_ID}/x`)).rejects.toThrow('is not of the form <zoneId> ');
    });

    test('PageSecuritySetting: imported by <zoneId>, then no change', async () => {
      const imported = await read('PageSecuritySetting', ZONE_ID);
      expect(imported.getId()).toBe(ZONE_ID);
      const declared = await checked('PageSecuritySetting', { zoneId: ZONE_ID, enabled: false });
      expect(js(imported.getInputs())).toEqual(js(declared));
      expect((await diff('PageSecuritySetting', js(imported.getProperties()), js(declared))).getChanges()).toBe(
        proto.DiffResponse.DiffChanges.DIFF_NONE,
      );
    });

    test('HealthNotification: created and imported by <accountId>/<policyId>, then no change', async () => {
      const declaration = {
        accountId: ACCOUNT_ID,
        name: 'origin health',
        poolIds: [POOL_ID],
        newHealth: ['Unhealthy'],
      };
      const created = await create('HealthNotification', await checked('HealthNotification', declaration));
      expect(created.getId()).toMatch(new RegExp(`^${ACCOUNT_ID}/[0-9a-f]{32}$`));
      const imported = await read('HealthNotification', created.getId());
      const declared = await checked('HealthNotification', declaration);
      expect(js(imported.getInputs())).toEqual(js(declared));
      expect((await diff('HealthNotification', js(imported.getProperties()), js(declared))).getChanges()).toBe(
        proto.DiffResponse.DiffChanges.DIFF_NONE,
      );
    });

    test('CustomHostname and its validation: imported by <zoneId>/<customHostnameId>, then no change', async () => {
      const declaration = { zoneId: ZONE_ID, hostname: 'shop.customer-import.net', ssl: { method: 'txt', type: 'dv' } };
      const created = await create('CustomHostname', await checked('CustomHostname', declaration));
      const [, hostnameId] = created.getId().split('/');
      expect(hostnameId).toMatch(/^[0-9a-f]{32}$/);
      // Validated (the ownership record published), so that nothing is left to do after the import.
      const record = (await emu.api('GET', `zones/${ZONE_ID}/custom_hostnames/${hostnameId}`)).body.result;
      const { name, value } = record.ownership_verification;
      expect((await emu.control('POST', 'dns', { hostname: name, records: [{ type: 'TXT', value }] })).status).toBe(
        200,
      );
      const live = (await emu.api('GET', `zones/${ZONE_ID}/custom_hostnames/${hostnameId}`)).body.result;
      expect([live.status, live.ssl.status]).toEqual(['active', 'active']);
      // The live object has the certificate authority the service chose: a program declaring it names that one.
      const chosen = live.ssl.certificate_authority;
      expect(chosen).not.toBe('');
      for (const [type, news] of [
        ['CustomHostname', { ...declaration, ssl: { ...declaration.ssl, certificateAuthority: chosen } }],
        ['CustomHostnameValidation', { zoneId: ZONE_ID, customHostnameId: hostnameId }],
      ] as const) {
        const imported = await read(type, created.getId());
        expect(imported.getId()).toBe(created.getId());
        const declared = await checked(type, news);
        expect(js(imported.getInputs())).toEqual(js(declared));
        const after = await diff(type, js(imported.getProperties()), js(declared));
        expect(detailed(after)).toEqual([]);
      }
      // Declared with the default authority ("": the service's choice), the imported hostname is no change either.
      const imported = await read('CustomHostname', created.getId());
      const byDefault = await diff(
        'CustomHostname',
        js(imported.getProperties()),
        js(await checked('CustomHostname', declaration)),
      );
      expect(detailed(byDefault)).toEqual([]);
    });

    test('PoolNotificationMigration: import is refused, saying to declare it', async () => {
      await expect(read('PoolNotificationMigration', ACCOUNT_ID)).rejects.toThrow(
        'PoolNotificationMigration a0000000000000000000000000000001 cannot be imported: a PoolNotificationMigration is an action',
      );
    });
  });

  /** The error of a read (page security of the fixture zone) by a new instance configured with `config`. */
  async function readFailure(config: Record<string, unknown>): Promise<grpc.ServiceError> {
    const other = await startPlugin();
    try {
      await configure(other, config);
      return await read('PageSecuritySetting', ZONE_ID, {}, other).then(
        () => {
          throw new Error('the read succeeded');
        },
        (error: grpc.ServiceError) => error,
      );
    } finally {
      await other.close();
    }
  }

  test('a configured instance without a token the service accepts fails with the service reason, and no credential', async () => {
    const error = await readFailure({ baseUrl: emu.baseUrl, apiToken: secret('wrong-token-5b1c9d') });
    expect(error.details).toMatch(/HTTP 401/);
    expect(error.details).not.toContain('wrong-token-5b1c9d');
  });

  test('secret outputs are never plain in a response', async () => {
    const created = await create(
      'CspPolicy',
      await checked('CspPolicy', { ...POLICY, value: secret("script-src 'self'") }),
    );
    const wire = JSON.stringify(js(created.getProperties()));
    expect(wire).toContain(SECRET_SIG);
    expect(js(created.getProperties()).value).toEqual(secret("script-src 'self'"));
  });

  test('two instances pace on their own: a window one fills does not hold back the other', async () => {
    const config = { baseUrl: emu.baseUrl, apiToken: secret(TEST_TOKEN), issuanceLimit: 1, issuanceWindowSeconds: 2 };
    const [first, second] = [await startPlugin(), await startPlugin()];
    try {
      await configure(first, config);
      await configure(second, config);
      const createIn = async (target: TestPlugin, hostname: string): Promise<number> => {
        const inputs = await checked('CustomHostname', {
          zoneId: ZONE_ID,
          hostname,
          ssl: { method: 'txt', type: 'dv' },
        });
        const started = Date.now();
        await target.call(
          'create',
          new proto.CreateRequest()
            .setUrn(urn('CustomHostname'))
            .setType('edgeguard:index:CustomHostname')
            .setProperties(inputs),
        );
        return Date.now() - started;
      };
      await createIn(first, 'one.pacing.example');
      // The first instance's window for the zone is full (1 per 2 s, plus its 1 s margin); the second's is empty.
      const [firstAgain, other] = await Promise.all([
        createIn(first, 'two.pacing.example'),
        createIn(second, 'three.pacing.example'),
      ]);
      expect(firstAgain).toBeGreaterThan(2_000);
      expect(other).toBeLessThan(1_000);
    } finally {
      await first.close();
      await second.close();
    }
  });

  test('a create that lands but cannot work is recorded by the engine: ErrorResourceInitFailed with the plugin id and the outputs', async () => {
    const held = 'c00000000000000000000000000000f9';
    await emu.seed({ zones: [{ id: held, name: 'held-customer.example', account_id: ACCOUNT_ID }] });
    expect((await emu.control('POST', `zones/${held}/hold`, { include_subdomains: true })).status).toBe(200);
    const inputs = await checked('CustomHostname', {
      zoneId: ZONE_ID,
      hostname: 'shop.held-customer.example',
      ssl: { method: 'txt', type: 'dv' },
    });
    const error = (await create('CustomHostname', inputs).then(
      () => undefined,
      (e: unknown) => e,
    )) as grpc.ServiceError;
    expect(error.message).toMatch(/blocked/);
    const [bytes] = error.metadata.get('grpc-status-details-bin');
    const status = statusProto.Status.deserializeBinary(bytes as Uint8Array);
    const detail = status
      .getDetailsList()[0]!
      .unpack((data) => proto.ErrorResourceInitFailed.deserializeBinary(data), 'pulumirpc.ErrorResourceInitFailed')!;
    const hostnames = (
      await emu.api('GET', `zones/${ZONE_ID}/custom_hostnames`, { query: { hostname: 'shop.held-customer.example' } })
    ).body.result;
    expect(hostnames).toHaveLength(1);
    expect(detail.getId()).toBe(`${ZONE_ID}/${hostnames[0].id}`);
    expect(js(detail.getProperties())).toMatchObject({
      hostname: 'shop.held-customer.example',
      customHostnameId: hostnames[0].id,
      status: 'blocked',
    });
    expect(detail.getReasonsList().length).toBeGreaterThan(0);
  });

  test('a refused connection names the setting to check, as for the dynamic resources', async () => {
    const error = await readFailure({ baseUrl: 'http://127.0.0.1:9/client/v4', apiToken: secret(TEST_TOKEN) });
    expect(error.code).toBe(2);
    expect(error.details).toMatch(/or set edgeguard:baseUrl \(or EDGEGUARD_BASE_URL\) to its address$/);
  }, 60_000);
});
