import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { ConfigMap } from '@pulumi/pulumi/automation';
import type { PolicyPackArgs } from '@pulumi/policy';
import { packSettingsEnv } from '../../../provider/review/review-stack';
import { resolveSettings, SETTINGS } from '../../../provider/settings';

/**
 * Where the policy pack's settings come from (issue 43): its environment, which `edgeguard-review`
 * fills from the stack's `edgeguard:*` configuration (`packSettingsEnv`), and not a patch of
 * `@pulumi/policy`'s gRPC server that kept the configuration the engine gives the pack. Through the
 * real engine: tests/engine/review/csp-review.test.ts.
 */

/** `@grpc/grpc-js`'s server class as `@pulumi/policy` finds it, by `createRequire` and by jest's own resolution. */
function grpcServers(): Array<{ prototype: object }> {
  const policy = require.resolve('@pulumi/policy');
  const native = createRequire(policy)('@grpc/grpc-js') as { Server: { prototype: object } };
  const resolved = require.resolve('@grpc/grpc-js', { paths: [path.dirname(policy)] });
  const jests = jest.requireActual<{ Server: { prototype: object } }>(resolved);
  return [native.Server, jests.Server];
}

/** What a prototype holds: each own property's descriptor (jest's equality compares functions by identity). */
function methodsOf(prototype: object): Map<string, PropertyDescriptor> {
  return new Map(Object.entries(Object.getOwnPropertyDescriptors(prototype)));
}

test("loading the pack module leaves @grpc/grpc-js's Server.prototype.addService, and every other method, as they were", () => {
  const served: PolicyPackArgs[] = [];
  jest.isolateModules(() => {
    // The copies of the registry the pack loads in (jest's createRequire included).
    const servers = grpcServers();
    const before = servers.map((server) => methodsOf(server.prototype));
    expect(before[0]!.get('addService')).toEqual(expect.objectContaining({ value: expect.any(Function) }));
    // The pack's policies without a gRPC server on a port: PolicyPack serves in its constructor.
    jest.doMock('@pulumi/policy', () => ({
      ...jest.requireActual<object>('@pulumi/policy'),
      PolicyPack: class {
        constructor(_name: string, args: PolicyPackArgs) {
          served.push(args);
        }
      },
    }));
    // Its start registers a resolve hook for Node's own loader, for the rest of this worker's life;
    // it touches no library's function (tests/unit/review/pack-start.test.ts).
    jest.doMock('../../../provider/pack/start', () => ({}));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading it is what is tested
    require('../../../provider/pack/pack');
    servers.forEach((server, index) => {
      const after = methodsOf(server.prototype);
      expect([...after.keys()].sort()).toEqual([...before[index]!.keys()].sort());
      for (const [name, descriptor] of after) expect([name, descriptor]).toEqual([name, before[index]!.get(name)]);
    });
  });
  expect(served).toHaveLength(1);
});

describe("the stack's configuration as the pack's environment (packSettingsEnv)", () => {
  const config = (values: Record<string, string>): ConfigMap =>
    Object.fromEntries(
      Object.entries(values).map(([key, value]) => [key, { value, secret: key === 'edgeguard:apiToken' }]),
    );

  test('each edgeguard:* key of the settings table becomes its variable; other keys stay out', () => {
    expect(
      packSettingsEnv(
        config({
          'edgeguard:baseUrl': 'http://127.0.0.1:8787/client/v4',
          'edgeguard:apiToken': 'stack-token',
          'edgeguard:dialect': 'vendor',
          'edgeguard:issuanceLimit': '5',
          'edgeguard-flagship:zoneId': 'c0ffee',
          'other:apiToken': 'not-ours',
        }),
      ),
    ).toEqual({
      EDGEGUARD_BASE_URL: 'http://127.0.0.1:8787/client/v4',
      EDGEGUARD_API_TOKEN: 'stack-token',
      EDGEGUARD_DIALECT: 'vendor',
      EDGEGUARD_ISSUANCE_LIMIT: '5',
    });
    expect(Object.keys(SETTINGS)).toHaveLength(8);
  });

  test("over the caller's environment, the pack resolves what the stack's resources resolve, key by key", () => {
    const caller = {
      EDGEGUARD_BASE_URL: 'http://caller.example/client/v4',
      EDGEGUARD_API_TOKEN: 'caller-token',
      EDGEGUARD_VENDOR: 'callervendor',
    };
    const stack = {
      'edgeguard:baseUrl': 'http://stack.example/client/v4',
      'edgeguard:apiToken': 'stack-token',
      'edgeguard:issuanceLimit': '',
    };
    const pack = resolveSettings({ env: { ...caller, ...packSettingsEnv(config(stack)) } });
    const resources = resolveSettings({
      env: { ...caller, EDGEGUARD_ISSUANCE_LIMIT: '3' },
      config: (key) => stack[`edgeguard:${key}` as keyof typeof stack],
    });
    expect(pack).toEqual(resources);
    expect(pack).toMatchObject({
      baseUrl: 'http://stack.example/client/v4',
      credentials: { kind: 'token', token: 'stack-token' },
      vendor: 'callervendor',
      issuance: { limit: 15 },
    });
  });
});
