import * as grpc from '@grpc/grpc-js';
import * as engineRpc from '@pulumi/pulumi/proto/engine_grpc_pb';
import * as engineProto from '@pulumi/pulumi/proto/engine_pb';
import * as pluginProto from '@pulumi/pulumi/proto/plugin_pb';
import * as providerRpc from '@pulumi/pulumi/proto/provider_grpc_pb';
import * as providerProto from '@pulumi/pulumi/proto/provider_pb';
import * as statusProto from '@pulumi/pulumi/proto/status_pb';
import { Any } from 'google-protobuf/google/protobuf/any_pb';
import { Empty } from 'google-protobuf/google/protobuf/empty_pb';
import type { Struct } from 'google-protobuf/google/protobuf/struct_pb';
import { instanceClient } from '../client/shared';
import { EdgeGuardError } from '../client/errors';
import type { HttpClient } from '../client/http';
import { checkRuntime } from '../runtime/check';
import { parsedInputs, type RuntimeContext } from '../runtime/contract';
import { decideDiff, deleteLive, engineCall, readLive } from '../runtime/host';
import { PartialFailure } from '../runtime/partial';
import { changedSettings, configFailures, instanceSettings, SECRET_SETTINGS, settingTexts } from './config';
import { parsePluginId, pluginId } from './ids';
import { PLUGIN_RESOURCES, type PluginResource } from './resources';
import { schemaText } from './schema-text';
import { plainProperties, wireProperties } from './values';
import { PLUGIN_VERSION } from './version';

/**
 * The gRPC `ResourceProvider` of `pulumi-resource-edgeguard`, over the stubs the SDK ships. One
 * server is one provider instance (the engine starts a plugin process per provider resource): it
 * resolves its configuration once, in Configure, and keeps its own client and pacer, so one
 * program can hold several accounts. It is a thin adapter: it translates the wire (secrets,
 * unknowns, ids, the detailed diff, a partial failure) and calls the same `Runtime` objects as the
 * dynamic resources, through the steps both hosts share (provider/runtime/host.ts).
 *
 * The SDK's own `pulumi.provider.main` is not used: its Configure drops the configuration,
 * CheckConfig and DiffConfig are unimplemented and its Diff drops the detailed diff.
 */

/** Options of {@link serve}. */
export interface ServeOptions {
  /** The engine's address (the plugin's argument), for lines shown in its output. None: standard error. */
  engineAddress?: string;
  /** The environment the settings fall back to. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** A serving plugin. */
export interface RunningPlugin {
  /** The port on 127.0.0.1. */
  port: number;
  close(): Promise<void>;
}

type Handler<Req, Res> = (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => void;

/** The errors {@link wireError} made, which go to the engine as they are. */
const wireErrors = new WeakSet<object>();

/** A gRPC error for the engine: the message, and for a partial failure the object it must record. */
function wireError(
  error: unknown,
  initFailed?: { id: string; properties: Struct; reasons: string[] },
): grpc.ServiceError {
  const message = error instanceof Error ? error.message : String(error);
  const metadata = new grpc.Metadata();
  if (initFailed !== undefined) {
    // The engine reads ErrorResourceInitFailed from the status details, as the SDK's servers send it.
    const detail = new providerProto.ErrorResourceInitFailed();
    detail.setId(initFailed.id);
    detail.setProperties(initFailed.properties);
    detail.setReasonsList(initFailed.reasons);
    const any = new Any();
    any.pack(detail.serializeBinary(), 'pulumirpc.ErrorResourceInitFailed');
    const status = new statusProto.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(message);
    status.addDetails(any);
    metadata.add('grpc-status-details-bin', Buffer.from(status.serializeBinary()));
  }
  const wire = Object.assign(new Error(message), { code: grpc.status.UNKNOWN, details: message, metadata });
  wireErrors.add(wire);
  return wire;
}

/** Answers a unary call with what `run` gives, or its error. */
function unary<Req, Res>(run: (request: Req) => Promise<Res> | Res): Handler<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => run(call.request))
      .then(
        (response) => callback(null, response),
        (error: unknown) =>
          callback(error instanceof Error && wireErrors.has(error) ? (error as grpc.ServiceError) : wireError(error)),
      );
  };
}

function unimplemented<Req, Res>(what: string): Handler<Req, Res> {
  return (_call, callback) => callback({ code: grpc.status.UNIMPLEMENTED, details: `${what} is not implemented` });
}

/** The type token of a request: its own field, else the URN's last type (`urn:pulumi:s::p::a$edgeguard:index:X::n`). */
function typeOf(request: { getType(): string; getUrn(): string }): string {
  const type = request.getType();
  if (type !== '') return type;
  const qualified = request.getUrn().split('::')[2] ?? '';
  return qualified.split('$').pop() ?? '';
}

/** The plugin's provider instance: its settings and client, made in Configure. */
class Instance {
  private client: HttpClient | undefined;
  private engine: engineRpc.EngineClient | undefined;

  constructor(private readonly options: ServeOptions) {
    if (options.engineAddress !== undefined) this.attach(options.engineAddress);
  }

  /** Speaks to the engine at `address` (the plugin's argument, or Attach when the engine attaches to a running plugin). */
  attach(address: string): void {
    this.engine?.close();
    this.engine = new engineRpc.EngineClient(address, grpc.credentials.createInsecure());
  }

  /** The environment the settings fall back to. */
  get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  configure(values: Record<string, unknown>): void {
    const texts = settingTexts(values);
    // A configuration not known yet (a preview with a provider input that is an output) leaves the
    // client unmade: a preview does not call the service, and the update configures again.
    // The wait for the API limit is about the provider, not one resource: the engine shows it for the stack.
    this.client =
      texts === undefined
        ? undefined
        : instanceClient(instanceSettings(texts, this.env), { notice: (line) => this.show('', line) });
  }

  context(urn: string): RuntimeContext {
    const client = (): HttpClient => {
      if (this.client === undefined)
        throw new EdgeGuardError('the edgeguard provider is not configured yet: its settings are not known');
      return this.client;
    };
    return {
      get client() {
        return client();
      },
      show: (line) => this.show(urn, line),
    };
  }

  private show(urn: string, line: string): void {
    if (this.engine === undefined) {
      process.stderr.write(`${line}\n`);
      return;
    }
    const request = new engineProto.LogRequest();
    request.setSeverity(engineProto.LogSeverity.INFO);
    request.setMessage(line);
    request.setUrn(urn);
    this.engine.log(request, () => undefined);
  }

  close(): void {
    this.engine?.close();
  }
}

function resourceOf(request: { getType(): string; getUrn(): string }): PluginResource {
  const type = typeOf(request);
  const entry = PLUGIN_RESOURCES.get(type);
  if (entry === undefined) throw new Error(`the edgeguard provider has no resource type ${JSON.stringify(type)}`);
  return entry;
}

/** A create or update whose object exists but did not reach the declared state: recorded by the engine. */
function partialOrError(error: unknown, entry: PluginResource, owner: string, secrets: ReadonlySet<string>): unknown {
  if (!(error instanceof PartialFailure)) return error;
  return wireError(error, {
    id: pluginId(entry, owner, error.id),
    properties: wireProperties(error.properties, secrets),
    reasons: error.reasons,
  });
}

function ownerIn(entry: PluginResource, values: object): string {
  return String((values as Record<string, unknown>)[entry.owner]);
}

/** The service's handlers for one provider instance. */
function handlers(instance: Instance): providerRpc.IResourceProviderServer {
  return {
    getPluginInfo: unary(() => new pluginProto.PluginInfo().setVersion(PLUGIN_VERSION)),

    getSchema: unary((request: providerProto.GetSchemaRequest) => {
      if (request.getVersion() !== 0) throw new Error(`unsupported schema version ${request.getVersion()}`);
      return new providerProto.GetSchemaResponse().setSchema(schemaText());
    }),

    checkConfig: unary((request: providerProto.CheckRequest) => {
      const news = plainProperties(request.getNews());
      const response = new providerProto.CheckResponse();
      response.setInputs(wireProperties(news.values, new Set([...news.secrets, ...SECRET_SETTINGS])));
      response.setFailuresList(
        configFailures(news.values, instance.env).map((failure) =>
          new providerProto.CheckFailure().setProperty(failure.property).setReason(failure.reason),
        ),
      );
      return response;
    }),

    diffConfig: unary((request: providerProto.DiffRequest) => {
      const olds = plainProperties(request.getOldInputs() ?? request.getOlds()).values;
      const news = plainProperties(request.getNews()).values;
      // Another address or credential reaches the same objects: the provider changes in place and no resource with it.
      return detailedDiff(changedSettings(olds, news), []);
    }),

    configure: unary((request: providerProto.ConfigureRequest) => {
      const args = request.getArgs();
      const values =
        args !== undefined
          ? plainProperties(args).values
          : Object.fromEntries(
              [...request.getVariablesMap().entries()].map(([key, value]) => [
                key.replace(/^edgeguard:(config:)?/, ''),
                value,
              ]),
            );
      instance.configure(values);
      return new providerProto.ConfigureResponse()
        .setAcceptsecrets(true)
        .setSupportspreview(true)
        .setAcceptresources(false)
        .setAcceptoutputs(false);
    }),

    check: unary((request: providerProto.CheckRequest) => {
      const entry = resourceOf(request);
      const news = plainProperties(request.getNews());
      const checked = checkRuntime(entry.runtime, news.values);
      const response = new providerProto.CheckResponse();
      response.setInputs(wireProperties(checked.inputs as object, news.secrets));
      response.setFailuresList(
        (checked.failures ?? []).map((failure) =>
          new providerProto.CheckFailure().setProperty(failure.property).setReason(failure.reason),
        ),
      );
      return response;
    }),

    diff: unary((request: providerProto.DiffRequest) => {
      const entry = resourceOf(request);
      const olds = plainProperties(request.getOlds()).values;
      const news = plainProperties(request.getNews()).values;
      const decided = decideDiff(entry.runtime, olds, news);
      return detailedDiff(decided.changed, decided.replaces, decided.deleteBeforeReplace);
    }),

    create: unary(async (request: providerProto.CreateRequest) => {
      const entry = resourceOf(request);
      const properties = plainProperties(request.getProperties());
      const response = new providerProto.CreateResponse();
      // A preview answers with the inputs (some unknown), as the engine itself would: it must not call the service.
      if (request.getPreview())
        return response.setId('').setProperties(wireProperties(properties.values, properties.secrets));
      const inputs = parsedInputs(entry.runtime.resource, entry.runtime.inputs, properties.values);
      const owner = ownerIn(entry, inputs);
      try {
        const created = await engineCall(() => entry.runtime.create(instance.context(request.getUrn()), inputs));
        return response
          .setId(pluginId(entry, owner, created.id))
          .setProperties(wireProperties(created.outs, properties.secrets));
      } catch (error) {
        throw partialOrError(error, entry, owner, properties.secrets);
      }
    }),

    read: unary(async (request: providerProto.ReadRequest) => {
      const entry = resourceOf(request);
      const { owner, runtimeId } = parsePluginId(entry, request.getId());
      const props = plainProperties(request.getProperties());
      const oldInputs = plainProperties(request.getInputs());
      // An import (or `get`) reads with the id alone.
      if (Object.keys(props.values).length === 0 && entry.noImport !== undefined)
        throw new Error(`${entry.runtime.resource} ${request.getId()} cannot be imported: ${entry.noImport}`);
      const live = await readLive(entry.runtime, instance.context(request.getUrn()), runtimeId, {
        ...props.values,
        [entry.owner]: owner,
      });
      const response = new providerProto.ReadResponse();
      if (live === undefined) return response.setId('');
      return response
        .setId(pluginId(entry, owner, runtimeId))
        .setProperties(wireProperties(live.props, props.secrets))
        .setInputs(wireProperties(live.inputs, new Set([...props.secrets, ...oldInputs.secrets])));
    }),

    update: unary(async (request: providerProto.UpdateRequest) => {
      const entry = resourceOf(request);
      const news = plainProperties(request.getNews());
      const response = new providerProto.UpdateResponse();
      if (request.getPreview()) return response.setProperties(wireProperties(news.values, news.secrets));
      const { owner, runtimeId } = parsePluginId(entry, request.getId());
      const olds = plainProperties(request.getOlds()).values;
      const inputs = parsedInputs(entry.runtime.resource, entry.runtime.inputs, news.values);
      try {
        const outs = await engineCall(() =>
          entry.runtime.update(instance.context(request.getUrn()), runtimeId, olds, inputs),
        );
        return response.setProperties(wireProperties(outs, news.secrets));
      } catch (error) {
        throw partialOrError(error, entry, owner, news.secrets);
      }
    }),

    delete: unary(async (request: providerProto.DeleteRequest) => {
      const entry = resourceOf(request);
      const { owner, runtimeId } = parsePluginId(entry, request.getId());
      const props = plainProperties(request.getProperties()).values;
      await deleteLive(entry.runtime, instance.context(request.getUrn()), runtimeId, {
        ...props,
        [entry.owner]: owner,
      });
      return new Empty();
    }),

    cancel: unary(() => new Empty()),
    attach: unary((request: pluginProto.PluginAttach) => {
      instance.attach(request.getAddress());
      return new Empty();
    }),
    // What a provider with no mappings to other tools answers.
    getMapping: unary(() => new providerProto.GetMappingResponse()),
    getMappings: unary(() => new providerProto.GetMappingsResponse()),
    handshake: unimplemented('Handshake'),
    parameterize: unimplemented('Parameterize'),
    invoke: unimplemented('Invoke'),
    call: unimplemented('Call'),
    construct: unimplemented('Construct'),
    list: (call: grpc.ServerWritableStream<providerProto.ListRequest, providerProto.ListResponse>) =>
      call.emit('error', { code: grpc.status.UNIMPLEMENTED, details: 'List is not implemented' }),
  };
}

/**
 * The engine's answer for `changed` properties, `replaces` among them: each named with its kind,
 * so `pulumi preview --diff` shows what changes and what replaces.
 */
function detailedDiff(
  changed: string[],
  replaces: string[],
  deleteBeforeReplace?: boolean,
): providerProto.DiffResponse {
  const response = new providerProto.DiffResponse();
  response.setChanges(
    changed.length > 0
      ? providerProto.DiffResponse.DiffChanges.DIFF_SOME
      : providerProto.DiffResponse.DiffChanges.DIFF_NONE,
  );
  response.setReplacesList(replaces);
  response.setDiffsList(changed);
  response.setDeletebeforereplace(deleteBeforeReplace ?? false);
  response.setHasdetaileddiff(true);
  const details = response.getDetaileddiffMap();
  for (const name of changed) {
    const kind = replaces.includes(name)
      ? providerProto.PropertyDiff.Kind.UPDATE_REPLACE
      : providerProto.PropertyDiff.Kind.UPDATE;
    details.set(name, new providerProto.PropertyDiff().setKind(kind));
  }
  return response;
}

/** Serves one provider instance on a port of 127.0.0.1. */
export async function serve(options: ServeOptions = {}): Promise<RunningPlugin> {
  const instance = new Instance(options);
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 400 * 1024 * 1024 });
  server.addService(providerRpc.ResourceProviderService, handlers(instance));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        instance.close();
        server.tryShutdown(() => resolve());
      }),
  };
}
