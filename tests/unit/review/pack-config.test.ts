import { createRequire } from 'node:module';
import { AnalyzeRequest } from '@pulumi/pulumi/proto/analyzer_pb';
import { Struct } from 'google-protobuf/google/protobuf/struct_pb';
import type { StackValidationArgs } from '@pulumi/policy';
import { ACCEPTED_KEY, acceptanceOf, keepStackConfig } from '../../../provider/review/pack-config';

/**
 * The pack hears the CSP policies the program declares (`keepStackConfig` of
 * `provider/review/pack-config.ts`): it wraps the `analyze` handler `@pulumi/policy` registers with
 * its gRPC server, and reads the engine's `AnalyzeRequest` message (the SDK's generated protobuf
 * code, as `@pulumi/policy` gets it). The read ahead judges a zone ahead once the program declares
 * its resources, and not when it declares one of the zone's policies otherwise
 * (tests/service/review/read-ahead.test.ts); through the real engine,
 * tests/engine/review/payment-review.test.ts.
 */

interface GrpcServer {
  prototype: { addService: (this: unknown, service: unknown, implementation: Record<string, unknown>) => void };
}
type Handler = (call: { request: AnalyzeRequest }, callback: (...answer: unknown[]) => void) => unknown;

// The @grpc/grpc-js that @pulumi/policy loads, as the wrapper resolves it.
const grpc = createRequire(require.resolve('@pulumi/policy'))('@grpc/grpc-js') as { Server: GrpcServer };
const registered: Array<Record<string, unknown>> = [];
const heard: Array<[string, string, Record<string, unknown>]> = [];
let failWith: Error | undefined;

beforeAll(() => {
  // What the server would register, recorded in place of the real registration.
  grpc.Server.prototype.addService = function (_service, implementation) {
    registered.push(implementation);
  };
  keepStackConfig(undefined, (urn, type, inputs) => {
    if (failWith !== undefined) throw failWith;
    heard.push([urn, type, inputs]);
  });
});

/** The `analyze` handler the server gets for `analyze`, the one `@pulumi/policy` gives. */
function wrapped(analyze: Handler): Handler {
  grpc.Server.prototype.addService.call({}, { analyze: {} }, { analyze, configure: () => undefined });
  return registered.at(-1)!.analyze as Handler;
}

function request(type: string, urn: string, inputs: Record<string, unknown>): AnalyzeRequest {
  return new AnalyzeRequest()
    .setType(type)
    .setUrn(urn)
    .setName(urn.split('::').at(-1)!)
    .setProperties(Struct.fromJavaScript(inputs as Parameters<typeof Struct.fromJavaScript>[0]));
}

const INPUTS = {
  zoneId: 'c0ffee',
  action: 'allow',
  expression: 'http.host eq "checkout.example.com"',
  value: "script-src 'self'",
  enabled: true,
  __provider: 'exports.handler = ...',
};

beforeEach(() => {
  heard.length = 0;
  failWith = undefined;
});

test("a CSP policy's inputs are heard, of both kinds of resource, before @pulumi/policy analyzes it", async () => {
  const calls: string[] = [];
  const analyze = wrapped((call, callback) => {
    calls.push(call.request.getUrn());
    // Heard already when @pulumi/policy's handler runs.
    expect(heard.map(([urn]) => urn)).toContain(call.request.getUrn());
    callback(null, 'answer');
  });
  for (const type of ['pulumi-nodejs:dynamic/edgeguard:CspPolicy', 'edgeguard:index:CspPolicy']) {
    const urn = `urn:pulumi:dev::shop::${type}::checkout`;
    const answers: unknown[][] = [];
    analyze({ request: request(type, urn, INPUTS) }, (...answer) => answers.push(answer));
    expect(answers).toEqual([[null, 'answer']]);
    expect(heard.at(-1)).toEqual([urn, type, INPUTS]);
  }
  expect(calls).toHaveLength(2);
});

test('another resource is heard without its inputs; a hearing that throws leaves the analysis alone', () => {
  const answers: unknown[][] = [];
  const analyze = wrapped((_call, callback) => callback(null, 'answer'));
  const inventory = 'pulumi-nodejs:dynamic/edgeguard:ScriptInventory';
  const urn = `urn:pulumi:dev::shop::${inventory}::pay`;
  analyze({ request: request(inventory, urn, { zoneId: 'c0ffee', __provider: 'exports.handler = ...' }) }, (...a) =>
    answers.push(a),
  );
  expect(heard).toEqual([[urn, inventory, {}]]);
  failWith = new Error('boom');
  const type = 'edgeguard:index:CspPolicy';
  analyze({ request: request(type, `urn:pulumi:dev::shop::${type}::checkout`, INPUTS) }, (...a) => answers.push(a));
  expect(answers).toEqual([
    [null, 'answer'],
    [null, 'answer'],
  ]);
});

describe("the accepted scripts and connections of a policy's configuration (acceptanceOf)", () => {
  const accepting = (kind: 'scripts' | 'connections', items: unknown[]) =>
    acceptanceOf({ getConfig: () => ({ [ACCEPTED_KEY[kind]]: items }) } as unknown as StackValidationArgs, kind);

  test.each(['scripts', 'connections'] as const)(
    '%s: a prefix accepts what is under it by origin and path, as the inventory does, not by text',
    (kind) => {
      const accepted = accepting(kind, [
        { prefix: 'https://cdn.example.com', reason: 'our CDN' },
        { prefix: 'https://api.example.com/v1/', reason: 'our API' },
        { url: 'https://pay.example.com/sdk.js', reason: 'the payment SDK' },
      ]);
      expect(accepted('https://cdn.example.com/x.js')).toBe('our CDN');
      expect(accepted('https://cdn.example.com/')).toBe('our CDN');
      // Another host whose name begins with the prefix's, another port, another scheme.
      expect(accepted('https://cdn.example.com.evil.net/x.js')).toBeUndefined();
      expect(accepted('https://cdn.example.com:8443/x.js')).toBeUndefined();
      expect(accepted('http://cdn.example.com/x.js')).toBeUndefined();
      // A path prefix covers whole segments, percent-decoded.
      expect(accepted('https://api.example.com/v1/pay')).toBe('our API');
      expect(accepted('https://api.example.com/v1%2Fpay')).toBe('our API');
      expect(accepted('https://api.example.com/v10/pay')).toBeUndefined();
      expect(accepted('https://pay.example.com/sdk.js')).toBe('the payment SDK');
      expect(accepted('https://pay.example.com/sdk.js.evil.net')).toBeUndefined();
      expect(accepted('not a url')).toBeUndefined();
    },
  );

  test('a prefix that is no URL, or that ends inside a path segment, is refused naming the entry', () => {
    expect(() => accepting('scripts', [{ prefix: 'cdn.example.com', reason: 'r' }])).toThrow(
      'acceptedScripts[0].prefix: "cdn.example.com" is not an absolute URL with a host',
    );
    expect(() =>
      accepting('connections', [
        { url: 'https://a.example.com/', reason: 'r' },
        { prefix: 'https://api.example.com/v1', reason: 'r' },
      ]),
    ).toThrow('acceptedConnections[1].prefix: "https://api.example.com/v1" does not end in "/"');
  });
});
