import { Struct } from 'google-protobuf/google/protobuf/struct_pb';

/**
 * Property values between the engine's wire form and the runtimes. The engine sends a secret as an
 * object signed with the SDK's secret signature (`runtime/rpc.js` in `@pulumi/pulumi`, whose
 * module is not loaded here: it pulls in the whole SDK, and the plugin's start-up is paid by
 * every deployment). The runtimes see plain values; what was secret going in goes back secret,
 * property by property: a top-level property any part of which was secret is secret as a whole.
 */

/** The key of the SDK's signature on special values. */
const SIG_KEY = '4dabf18193072939515e22adb298388d';
/** The signature of a secret. */
const SECRET_SIG = '1b47061264138c4ac30d75fd1eb44270';

/** Properties as the runtimes take them, and which of them held a secret. */
export interface PlainProperties {
  values: Record<string, unknown>;
  /** The top-level names of the properties that held a secret. */
  secrets: Set<string>;
}

function isSecret(value: unknown): value is { value: unknown } {
  return value !== null && typeof value === 'object' && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

function reveal(value: unknown, found: { secret: boolean }): unknown {
  if (isSecret(value)) {
    found.secret = true;
    return reveal(value.value, found);
  }
  if (Array.isArray(value)) return value.map((item) => reveal(item, found));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, reveal(item, found)]));
  return value;
}

/** The properties of a request's struct, secrets unwrapped and their names kept. */
export function plainProperties(struct: Struct | undefined): PlainProperties {
  const raw = struct?.toJavaScript() ?? {};
  const values: Record<string, unknown> = {};
  const secrets = new Set<string>();
  for (const [key, value] of Object.entries(raw)) {
    const found = { secret: false };
    values[key] = reveal(value, found);
    if (found.secret) secrets.add(key);
  }
  return { values, secrets };
}

/** `values` as a struct for the engine, the properties named in `secrets` marked secret. */
export function wireProperties(values: object, secrets: ReadonlySet<string>): Struct {
  // JSON drops the properties left undefined (no value: the engine's "absent"), which a Struct cannot carry.
  const plain = JSON.parse(JSON.stringify(values)) as Record<string, unknown>;
  const wire = Object.fromEntries(
    Object.entries(plain).map(([key, value]) => [key, secrets.has(key) ? { [SIG_KEY]: SECRET_SIG, value } : value]),
  );
  return Struct.fromJavaScript(wire as Parameters<typeof Struct.fromJavaScript>[0]);
}
