import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { PluginInfo } from '@pulumi/pulumi/proto/plugin_pb';
import * as providerRpc from '@pulumi/pulumi/proto/provider_grpc_pb';
import type * as proto from '@pulumi/pulumi/proto/provider_pb';
import type { Empty } from 'google-protobuf/google/protobuf/empty_pb';
import { Struct } from 'google-protobuf/google/protobuf/struct_pb';
import type * as server from '../../provider/plugin/server';
import { REPO } from './repo';

/**
 * The provider plugin in tests over its real gRPC interface: served in this process from the
 * compiled package (the plugin reads its version and schema beside its compiled files), spoken to
 * with the SDK's client stub. Programs run the built executable (`./languages.ts`).
 */

/** The key of the SDK's signature on special values (a secret, on the wire and in the state). */
export const SIG_KEY = '4dabf18193072939515e22adb298388d';
/** The signature of a secret: `{ [SIG_KEY]: SECRET_SIG, value }` on the wire, `{ ..., ciphertext }` in the state. */
export const SECRET_SIG = '1b47061264138c4ac30d75fd1eb44270';

/** The secret form of `value` on the wire. */
export function secret(value: unknown): Record<string, unknown> {
  return { [SIG_KEY]: SECRET_SIG, value };
}

/** The engine's unknown value during a preview. */
export const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

/** A struct of `values`. */
export function struct(values: Record<string, unknown>): Struct {
  return Struct.fromJavaScript(values as Parameters<typeof Struct.fromJavaScript>[0]);
}

/** The calls tests make: each with its request and response types. */
interface Unary {
  getPluginInfo: { request: Empty; response: PluginInfo };
  getSchema: { request: proto.GetSchemaRequest; response: proto.GetSchemaResponse };
  checkConfig: { request: proto.CheckRequest; response: proto.CheckResponse };
  diffConfig: { request: proto.DiffRequest; response: proto.DiffResponse };
  configure: { request: proto.ConfigureRequest; response: proto.ConfigureResponse };
  check: { request: proto.CheckRequest; response: proto.CheckResponse };
  diff: { request: proto.DiffRequest; response: proto.DiffResponse };
  create: { request: proto.CreateRequest; response: proto.CreateResponse };
  read: { request: proto.ReadRequest; response: proto.ReadResponse };
  update: { request: proto.UpdateRequest; response: proto.UpdateResponse };
  delete: { request: proto.DeleteRequest; response: Empty };
}
/** The unary calls of the service tests make, by name. */
export type UnaryName = keyof Unary;

/** One plugin instance served in this process, and a client of it. */
export interface TestPlugin {
  client: providerRpc.ResourceProviderClient;
  /** Calls `name` with `request`; rejects with the gRPC error. */
  call<K extends UnaryName>(name: K, request: Unary[K]['request']): Promise<Unary[K]['response']>;
  close(): Promise<void>;
}

/**
 * Serves one provider instance from the compiled plugin, with `env` as its environment, and the
 * engine at `engineAddress` for the lines it shows (none: standard error).
 */
export async function startPlugin(env: NodeJS.ProcessEnv = {}, engineAddress?: string): Promise<TestPlugin> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { serve } = require(path.join(REPO, 'dist', 'provider', 'plugin', 'server.js')) as typeof server;
  const running = await serve({ env, ...(engineAddress !== undefined ? { engineAddress } : {}) });
  const client = new providerRpc.ResourceProviderClient(`127.0.0.1:${running.port}`, grpc.credentials.createInsecure());
  return {
    client,
    call: (name, request) =>
      new Promise((resolve, reject) => {
        const method = client[name] as unknown as (
          request: unknown,
          callback: (error: grpc.ServiceError | null, response: never) => void,
        ) => unknown;
        method.call(client, request, (error, response) => (error ? reject(error) : resolve(response)));
      }),
    close: async () => {
      client.close();
      await running.close();
    },
  };
}
