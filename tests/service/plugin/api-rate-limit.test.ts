import * as grpc from '@grpc/grpc-js';
import * as engineRpc from '@pulumi/pulumi/proto/engine_grpc_pb';
import type { LogRequest } from '@pulumi/pulumi/proto/engine_pb';
import * as proto from '@pulumi/pulumi/proto/provider_pb';
import { Empty } from 'google-protobuf/google/protobuf/empty_pb';
import { startTestEmulator, TEST_TOKEN, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { startPlugin, struct } from '../../helpers/plugin';
import { until } from '../../helpers/until';

/**
 * The provider plugin under the service's API limit: a provider instance whose calls outrun a
 * scaled-down limit (3 calls per 2 s) finishes them, and says once, through the engine's log (a
 * fake engine here, over the real gRPC interface), that it waits and for how long.
 */

let emu: TestEmulator;
let engine: grpc.Server;
let enginePort: number;
const logged: Array<{ urn: string; message: string }> = [];

beforeAll(async () => {
  emu = await startTestEmulator({ apiRateLimit: { limit: 3, windowSeconds: 2 } });
  engine = new grpc.Server();
  engine.addService(engineRpc.EngineService, {
    log: (call: grpc.ServerUnaryCall<LogRequest, Empty>, callback: grpc.sendUnaryData<Empty>) => {
      logged.push({ urn: call.request.getUrn(), message: call.request.getMessage() });
      callback(null, new Empty());
    },
  });
  enginePort = await new Promise<number>((resolve, reject) =>
    engine.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );
});
afterAll(async () => {
  engine.forceShutdown();
  await emu.close();
});

test("a provider instance past the limit finishes its reads and says once, in the engine's log, that it waits", async () => {
  const plugin = await startPlugin({}, `127.0.0.1:${enginePort}`);
  try {
    await plugin.call(
      'configure',
      new proto.ConfigureRequest().setArgs(struct({ baseUrl: emu.baseUrl, apiToken: TEST_TOKEN })),
    );
    const mark = emu.mark();
    for (let i = 0; i < 7; i++) {
      const read = await plugin.call(
        'read',
        new proto.ReadRequest()
          .setUrn('urn:pulumi:test::plugin::edgeguard:index:PageSecuritySetting::s')
          .setType('edgeguard:index:PageSecuritySetting')
          .setId(ZONE_ID)
          .setProperties(struct({})),
      );
      expect(read.getId()).toBe(ZONE_ID);
    }
    expect((await emu.requests(mark)).map((entry) => entry.status)).toEqual(Array.from({ length: 7 }, () => 200));
  } finally {
    await plugin.close();
  }
  // The engine's log is asynchronous: the line may arrive just after the read that waited.
  await until(
    () => logged.length > 0,
    10_000,
    () => 'the engine heard no log line within 10 s',
  );
  expect(logged).toHaveLength(1);
  expect(logged[0]!.urn).toBe('');
  expect(logged[0]!.message).toMatch(
    /^edgeguard: waiting [1-3] s for the service's API limit \(3 calls per 2 s per credential/,
  );
  expect(logged[0]!.message).not.toContain(TEST_TOKEN);
}, 30_000);
