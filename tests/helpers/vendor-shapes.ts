import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { createGenerator } from 'ts-json-schema-generator';
import { LIST_PAGE_BOUNDS, type PageBounds } from '../../rules/dialect';
import { REPO } from './repo';

/**
 * The vendor's own shapes, to check EdgeGuard and its emulator against the vendor rather than
 * against themselves (issue 42). The shapes are the declared types of the vendor's official
 * TypeScript SDK, npm `cloudflare` 7.1.0 (a development dependency, `node_modules/cloudflare/`),
 * read at test time from its `.d.ts` files as JSON Schema with `ts-json-schema-generator`: each
 * operation's `*Params` type (its query or body fields; the path parameters the SDK puts there too,
 * such as `zone_id`, are left out) and its `*Response` type (the answer's `result`, or the whole
 * answer where the SDK does not unwrap it). The SDK is newer than the vendor's OpenAPI schema
 * (`api-schemas`, `openapi.json` at `cca3064`, 2024-08-06) and wins where they differ; the schema's
 * page bounds, which the SDK's types do not carry, are `LIST_PAGE_BOUNDS.vendor` of
 * `rules/dialect.ts`, and its words on wildcards ("supported at the start and end of each page URL /
 * hostname") are checked here too.
 *
 * Generating the schemas costs 15 to 90 s (one TypeScript program over the SDK's files; more on a
 * busy machine), so they are kept between runs in `.edgeguard/vendor-shapes/` ({@link generateSdkSchemas});
 * call {@link loadVendorShapes} once per test file, in `beforeAll`.
 */

/** The package and version the shapes come from. */
export const VENDOR_SDK = { name: 'cloudflare', version: '7.1.0' } as const;

/** Where an operation's answer holds what its response type describes. */
export type AnswerShape =
  /** The envelope's `result` is one object of the type. */
  | 'result'
  /** The envelope's `result` is an array of objects of the type. */
  | 'items'
  /** The whole body is of the type (the SDK does not unwrap `result`). */
  | 'whole'
  /** HTTP 204 and no body. */
  | 'empty';

/** One operation of the vendor's API that EdgeGuard uses. */
export interface VendorOperation {
  /** The SDK's name of it, as in `pageShield.policies.create`. */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path below `/client/v4`, with `{name}` for each path parameter. */
  template: string;
  /** The SDK's declaration file, below `node_modules/cloudflare/resources/`. */
  module: string;
  /** The SDK's type of its parameters (path, query or body). */
  params: string;
  /** The SDK's type of its answer; none for a 204. */
  response?: string;
  answer: AnswerShape;
  /** The schema's bounds of `per_page`, for a paged list. */
  perPage?: PageBounds;
  /** Query parameters whose comma-separated items may have `*` only at their start or end (the schema's words). */
  wildcards?: readonly string[];
}

const PAGE = LIST_PAGE_BOUNDS.vendor.pageSecurity;
const PS = '/zones/{zone_id}/page_shield';
const CH = '/zones/{zone_id}/custom_hostnames';
const POOLS = '/accounts/{account_id}/load_balancers/pools';
const ALERTS = '/accounts/{account_id}/alerting/v3/policies';
const DETECTED_WILDCARDS = ['page_url', 'hosts'] as const;

/** The operations EdgeGuard uses, as the SDK declares them. */
export const VENDOR_OPERATIONS: readonly VendorOperation[] = [
  {
    id: 'pageShield.get',
    method: 'GET',
    template: PS,
    module: 'page-shield/page-shield',
    params: 'PageShieldGetParams',
    response: 'Setting',
    answer: 'result',
  },
  {
    id: 'pageShield.update',
    method: 'PUT',
    template: PS,
    module: 'page-shield/page-shield',
    params: 'PageShieldUpdateParams',
    response: 'PageShieldUpdateResponse',
    answer: 'result',
  },
  {
    id: 'pageShield.scripts.list',
    method: 'GET',
    template: `${PS}/scripts`,
    module: 'page-shield/scripts',
    params: 'ScriptListParams',
    response: 'Script',
    answer: 'items',
    perPage: PAGE,
    wildcards: DETECTED_WILDCARDS,
  },
  {
    id: 'pageShield.scripts.get',
    method: 'GET',
    template: `${PS}/scripts/{script_id}`,
    module: 'page-shield/scripts',
    params: 'ScriptGetParams',
    response: 'ScriptGetResponse',
    answer: 'result',
  },
  {
    id: 'pageShield.connections.list',
    method: 'GET',
    template: `${PS}/connections`,
    module: 'page-shield/connections',
    params: 'ConnectionListParams',
    response: 'Connection',
    answer: 'items',
    perPage: PAGE,
    wildcards: DETECTED_WILDCARDS,
  },
  {
    id: 'pageShield.connections.get',
    method: 'GET',
    template: `${PS}/connections/{connection_id}`,
    module: 'page-shield/connections',
    params: 'ConnectionGetParams',
    response: 'Connection',
    answer: 'result',
  },
  {
    id: 'pageShield.cookies.list',
    method: 'GET',
    template: `${PS}/cookies`,
    module: 'page-shield/cookies',
    params: 'CookieListParams',
    response: 'CookieListResponse',
    answer: 'items',
    perPage: PAGE,
    wildcards: DETECTED_WILDCARDS,
  },
  {
    id: 'pageShield.cookies.get',
    method: 'GET',
    template: `${PS}/cookies/{cookie_id}`,
    module: 'page-shield/cookies',
    params: 'CookieGetParams',
    response: 'CookieGetResponse',
    answer: 'result',
  },
  {
    id: 'pageShield.policies.create',
    method: 'POST',
    template: `${PS}/policies`,
    module: 'page-shield/policies',
    params: 'PolicyCreateParams',
    response: 'PolicyCreateResponse',
    answer: 'result',
  },
  {
    id: 'pageShield.policies.list',
    method: 'GET',
    template: `${PS}/policies`,
    module: 'page-shield/policies',
    params: 'PolicyListParams',
    response: 'PolicyListResponse',
    answer: 'items',
  },
  {
    id: 'pageShield.policies.get',
    method: 'GET',
    template: `${PS}/policies/{policy_id}`,
    module: 'page-shield/policies',
    params: 'PolicyGetParams',
    response: 'PolicyGetResponse',
    answer: 'result',
  },
  {
    id: 'pageShield.policies.update',
    method: 'PUT',
    template: `${PS}/policies/{policy_id}`,
    module: 'page-shield/policies',
    params: 'PolicyUpdateParams',
    response: 'PolicyUpdateResponse',
    answer: 'result',
  },
  {
    id: 'pageShield.policies.delete',
    method: 'DELETE',
    template: `${PS}/policies/{policy_id}`,
    module: 'page-shield/policies',
    params: 'PolicyDeleteParams',
    answer: 'empty',
  },
  {
    id: 'customHostnames.create',
    method: 'POST',
    template: CH,
    module: 'custom-hostnames/custom-hostnames',
    params: 'CustomHostnameCreateParams',
    response: 'CustomHostnameCreateResponse',
    answer: 'result',
  },
  {
    id: 'customHostnames.list',
    method: 'GET',
    template: CH,
    module: 'custom-hostnames/custom-hostnames',
    params: 'CustomHostnameListParams',
    response: 'CustomHostnameListResponse',
    answer: 'items',
    perPage: LIST_PAGE_BOUNDS.vendor.customHostnames,
  },
  {
    id: 'customHostnames.get',
    method: 'GET',
    template: `${CH}/{custom_hostname_id}`,
    module: 'custom-hostnames/custom-hostnames',
    params: 'CustomHostnameGetParams',
    response: 'CustomHostnameGetResponse',
    answer: 'result',
  },
  {
    id: 'customHostnames.edit',
    method: 'PATCH',
    template: `${CH}/{custom_hostname_id}`,
    module: 'custom-hostnames/custom-hostnames',
    params: 'CustomHostnameEditParams',
    response: 'CustomHostnameEditResponse',
    answer: 'result',
  },
  {
    id: 'customHostnames.delete',
    method: 'DELETE',
    template: `${CH}/{custom_hostname_id}`,
    module: 'custom-hostnames/custom-hostnames',
    params: 'CustomHostnameDeleteParams',
    response: 'CustomHostnameDeleteResponse',
    answer: 'whole',
  },
  {
    id: 'loadBalancers.pools.list',
    method: 'GET',
    template: POOLS,
    module: 'load-balancers/pools/pools',
    params: 'PoolListParams',
    response: 'Pool',
    answer: 'items',
  },
  {
    id: 'loadBalancers.pools.bulkEdit',
    method: 'PATCH',
    template: POOLS,
    module: 'load-balancers/pools/pools',
    params: 'PoolBulkEditParams',
    response: 'Pool',
    answer: 'items',
  },
  {
    id: 'loadBalancers.pools.get',
    method: 'GET',
    template: `${POOLS}/{pool_id}`,
    module: 'load-balancers/pools/pools',
    params: 'PoolGetParams',
    response: 'Pool',
    answer: 'result',
  },
  {
    id: 'loadBalancers.pools.edit',
    method: 'PATCH',
    template: `${POOLS}/{pool_id}`,
    module: 'load-balancers/pools/pools',
    params: 'PoolEditParams',
    response: 'Pool',
    answer: 'result',
  },
  {
    id: 'alerting.policies.create',
    method: 'POST',
    template: ALERTS,
    module: 'alerting/policies',
    params: 'PolicyCreateParams',
    response: 'PolicyCreateResponse',
    answer: 'result',
  },
  {
    id: 'alerting.policies.list',
    method: 'GET',
    template: ALERTS,
    module: 'alerting/policies',
    params: 'PolicyListParams',
    response: 'Policy',
    answer: 'items',
  },
  {
    id: 'alerting.policies.get',
    method: 'GET',
    template: `${ALERTS}/{policy_id}`,
    module: 'alerting/policies',
    params: 'PolicyGetParams',
    response: 'Policy',
    answer: 'result',
  },
  {
    id: 'alerting.policies.update',
    method: 'PUT',
    template: `${ALERTS}/{policy_id}`,
    module: 'alerting/policies',
    params: 'PolicyUpdateParams',
    response: 'PolicyUpdateResponse',
    answer: 'result',
  },
  {
    id: 'alerting.policies.delete',
    method: 'DELETE',
    template: `${ALERTS}/{policy_id}`,
    module: 'alerting/policies',
    params: 'PolicyDeleteParams',
    response: 'PolicyDeleteResponse',
    answer: 'whole',
  },
];

/** A request as the emulator's log keeps it (`GET /__emulator/requests`), or as a test makes one. */
export interface CheckedRequest {
  method: string;
  /** The path, with or without the `/client/v4` prefix. */
  path: string;
  query?: Record<string, string | string[]>;
  /** The parsed JSON body; `null` or absent without one. */
  body?: unknown;
}

/** A JSON Schema as the generator writes it: a root and its definitions. */
export type JsonSchema = Record<string, any>;

/** The operation a path names, and the values of its path parameters. */
export interface MatchedOperation {
  operation: VendorOperation;
  pathParams: Record<string, string>;
}

const API_PREFIX = '/client/v4';

/** A path template as a pattern: each `{name}` one segment. */
function templatePattern(template: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const body = template
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${body}$`), names };
}

/** The alias of `type` of `module` in the generated entry file (the SDK repeats names across modules). */
function aliasOf(module: string, type: string): string {
  return `${module.replace(/[^A-Za-z0-9]/g, '_')}__${type}`;
}

/** Where generated schemas are kept between runs (ignored by git), by a hash of what they are made from. */
const CACHE_DIR = path.join(REPO, '.edgeguard', 'vendor-shapes');

/**
 * JSON Schemas of the SDK's types, generated from its `.d.ts` files through one TypeScript program
 * (an entry file in a temporary folder that names each type by an alias of its module). What was
 * generated is kept in `.edgeguard/vendor-shapes/`, under a hash of the SDK's declaration files
 * read, the generator's version and the types asked for, so a later run (or another test file
 * asking for the same types) reads it instead of generating again (15 to 90 s on a busy machine);
 * any change to those inputs misses the cache and generates anew.
 */
export function generateSdkSchemas(types: ReadonlyArray<{ module: string; type: string }>): Map<string, JsonSchema> {
  const sdk = path.join(REPO, 'node_modules', 'cloudflare');
  const version = (JSON.parse(fs.readFileSync(path.join(sdk, 'package.json'), 'utf8')) as { version: string }).version;
  if (version !== VENDOR_SDK.version) {
    throw new Error(`node_modules/cloudflare is ${version}; the vendor's shapes are read from ${VENDOR_SDK.version}`);
  }
  const generatorVersion = (
    JSON.parse(
      fs.readFileSync(path.join(REPO, 'node_modules', 'ts-json-schema-generator', 'package.json'), 'utf8'),
    ) as {
      version: string;
    }
  ).version;
  const hash = createHash('sha256').update(`${version}\0${generatorVersion}\0${JSON.stringify(types)}`);
  for (const module of [...new Set(types.map((t) => t.module))].sort()) {
    hash.update(fs.readFileSync(path.join(sdk, 'resources', `${module}.d.ts`)));
  }
  const cached = path.join(CACHE_DIR, `${hash.digest('hex').slice(0, 32)}.json`);
  if (fs.existsSync(cached)) {
    return new Map(Object.entries(JSON.parse(fs.readFileSync(cached, 'utf8')) as Record<string, JsonSchema>));
  }
  const schemas = generateUncached(sdk, types);
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  // Written whole, then renamed: a test file reading it at the same time sees it whole or not at all.
  const partial = `${cached}.${process.pid}.tmp`;
  fs.writeFileSync(partial, JSON.stringify(Object.fromEntries(schemas)));
  fs.renameSync(partial, cached);
  return schemas;
}

function generateUncached(
  sdk: string,
  types: ReadonlyArray<{ module: string; type: string }>,
): Map<string, JsonSchema> {
  const modules = [...new Set(types.map((t) => t.module))];
  const lines = modules.map(
    (module, index) =>
      `import type * as M${index} from ${JSON.stringify(path.join(sdk, 'resources', module).replace(/\\/g, '/'))};`,
  );
  for (const { module, type } of types) {
    lines.push(`export type ${aliasOf(module, type)} = M${modules.indexOf(module)}.${type};`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-vendor-shapes-'));
  try {
    const entry = path.join(dir, 'entry.ts');
    fs.writeFileSync(entry, `${lines.join('\n')}\n`);
    const generator = createGenerator({
      path: entry,
      type: '*',
      skipTypeCheck: true,
      expose: 'export',
      topRef: false,
      jsDoc: 'none',
    });
    const schemas = new Map<string, JsonSchema>();
    for (const { module, type } of types) {
      schemas.set(`${module}#${type}`, generator.createSchema(aliasOf(module, type)));
    }
    return schemas;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The root object schema of a generated schema (its `$ref` followed once). */
export function rootOf(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref as string | undefined;
  if (ref === undefined) return schema;
  return schema.definitions[decodeURIComponent(ref.replace('#/definitions/', ''))];
}

/** `schema` with `$ref`s into its definitions followed. */
export function deref(root: JsonSchema, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let depth = 0; current?.$ref !== undefined && depth < 20; depth++) {
    current = root.definitions?.[decodeURIComponent(String(current.$ref).replace('#/definitions/', ''))];
  }
  return current;
}

/** A copy of a params schema without the path parameters, which the SDK declares beside the others. */
function withoutPathParams(schema: JsonSchema, pathParams: readonly string[]): JsonSchema {
  const copy = structuredClone(schema);
  const root = rootOf(copy);
  for (const name of pathParams) delete root.properties?.[name];
  if (Array.isArray(root.required)) root.required = root.required.filter((name: string) => !pathParams.includes(name));
  return copy;
}

/**
 * The SDK declares `ssl.cloudflare_branding` on the create and edit of a custom hostname but on no
 * answer; the emulator echoes it in its answers' `ssl`, as the vendor's dialect of the contract says
 * (issue 42). That one field, with the params' type, is allowed in the answers' `ssl`.
 */
function withEchoedBranding(schema: JsonSchema): JsonSchema {
  const copy = structuredClone(schema);
  const ssl = deref(copy, rootOf(copy).properties?.ssl ?? {});
  if (ssl?.properties !== undefined) ssl.properties.cloudflare_branding = { type: 'boolean' };
  return copy;
}

function describeError(where: string, error: ErrorObject): string {
  const at = `${where}${error.instancePath.replace(/\//g, '.')}`;
  if (error.keyword === 'additionalProperties') {
    return `${at}.${String(error.params.additionalProperty)}: not declared`;
  }
  if (error.keyword === 'enum')
    return `${at}: ${JSON.stringify(error.data)} is not one of ${JSON.stringify(error.params.allowedValues)}`;
  if (error.keyword === 'const')
    return `${at}: ${JSON.stringify(error.data)} is not ${JSON.stringify(error.params.allowedValue)}`;
  return `${at}: ${error.message ?? error.keyword} (got ${JSON.stringify(error.data)?.slice(0, 120)})`;
}

/** Query values as the schema's types: numbers, booleans, nested objects of dotted keys (the SDK's `allowDots`). */
function typedQuery(
  root: JsonSchema,
  query: Record<string, string | string[]>,
  problems: string[],
): Record<string, unknown> {
  const properties = (rootOf(root).properties ?? {}) as Record<string, JsonSchema>;
  const out: Record<string, any> = {};
  for (const [key, raw] of Object.entries(query)) {
    const [name, ...rest] = key.split('.');
    let schema = deref(root, properties[name!] ?? {});
    let holder = out;
    let field = name!;
    for (const part of rest) {
      holder[field] ??= {};
      holder = holder[field];
      field = part;
      schema = deref(root, schema?.properties?.[part] ?? {});
    }
    if (Array.isArray(raw) && schema?.type !== 'array') {
      problems.push(`query.${key}: given ${raw.length} times, declared once`);
    }
    const one = Array.isArray(raw) ? raw[0]! : raw;
    holder[field] = coerce(schema, one);
  }
  return out;
}

function coerce(schema: JsonSchema | undefined, value: string): unknown {
  const types = [schema?.type].flat();
  const numericEnum = Array.isArray(schema?.enum) && schema.enum.every((v: unknown) => typeof v === 'number');
  if ((types.includes('number') || types.includes('integer') || numericEnum) && /^-?\d+(\.\d+)?$/.test(value)) {
    return Number(value);
  }
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The vendor's shapes, loaded: match a request to its operation, and list what breaks the SDK's declarations. */
export class VendorShapes {
  private readonly paramChecks = new Map<string, ValidateFunction>();
  private readonly answerChecks = new Map<string, ValidateFunction>();
  private readonly paramSchemas = new Map<string, JsonSchema>();
  private readonly responseSchemas = new Map<string, JsonSchema>();
  private readonly patterns = new Map<string, { pattern: RegExp; names: string[] }>();

  constructor(
    readonly operations: readonly VendorOperation[],
    schemas: Map<string, JsonSchema>,
  ) {
    const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
    for (const operation of operations) {
      const compiled = templatePattern(operation.template);
      this.patterns.set(operation.id, compiled);
      const params = withoutPathParams(schemas.get(`${operation.module}#${operation.params}`)!, compiled.names);
      this.paramSchemas.set(operation.id, params);
      this.paramChecks.set(operation.id, ajv.compile(params));
      if (operation.response !== undefined) {
        let response = schemas.get(`${operation.module}#${operation.response}`)!;
        if (operation.id.startsWith('customHostnames.') && operation.answer !== 'whole') {
          response = withEchoedBranding(response);
        }
        this.responseSchemas.set(operation.id, response);
        this.answerChecks.set(operation.id, ajv.compile(response));
      }
    }
  }

  /** The operation of `id`; throws for an unknown one. */
  operation(id: string): VendorOperation {
    const operation = this.operations.find((candidate) => candidate.id === id);
    if (!operation) throw new Error(`no vendor operation ${id}`);
    return operation;
  }

  /** The JSON Schema of an operation's response type (with its definitions), for generating answers. */
  responseSchema(id: string): JsonSchema {
    const schema = this.responseSchemas.get(id);
    if (!schema) throw new Error(`vendor operation ${id} declares no response type`);
    return schema;
  }

  /** The JSON Schema of an operation's query or body fields (its params without the path ones). */
  paramsSchema(id: string): JsonSchema {
    return this.paramSchemas.get(id)!;
  }

  /** The operation `method` and `path` name, matched against the path templates; `undefined` for none. */
  match(method: string, requestPath: string): MatchedOperation | undefined {
    const bare = requestPath.split('?')[0]!.replace(new RegExp(`^${API_PREFIX}`), '');
    for (const operation of this.operations) {
      if (operation.method !== method.toUpperCase()) continue;
      const { pattern, names } = this.patterns.get(operation.id)!;
      const found = pattern.exec(bare);
      if (!found) continue;
      return { operation, pathParams: Object.fromEntries(names.map((name, i) => [name, found[i + 1]!])) };
    }
    return undefined;
  }

  /**
   * Every way `request` breaks the SDK's declaration of its operation: no operation at that method
   * and path; a query parameter or body field it does not declare; a wrong type; a value outside an
   * enum; a missing required field; `per_page` outside the schema's bounds; a `*` inside a pattern.
   * Each problem names the operation and the field. Empty: the request conforms.
   */
  requestProblems(request: CheckedRequest): string[] {
    const matched = this.match(request.method, request.path);
    if (!matched)
      return [`${request.method} ${request.path}: no operation of the vendor's API at this method and path`];
    const { operation } = matched;
    const name = `${operation.id} (${operation.method} ${operation.template})`;
    const problems: string[] = [];
    const query = request.query ?? {};
    const body = request.body ?? null;
    const check = this.paramChecks.get(operation.id)!;
    const schema = this.paramSchemas.get(operation.id)!;
    const readsQuery = operation.method === 'GET' || operation.method === 'DELETE';
    if (readsQuery) {
      if (body !== null) problems.push(`body: ${operation.params} declares no body on a ${operation.method}`);
      const typed = typedQuery(schema, query, problems);
      if (!check(typed)) problems.push(...check.errors!.map((error) => describeError('query', error)));
    } else {
      for (const key of Object.keys(query))
        problems.push(`query.${key}: not declared (the ${operation.method} takes a body only)`);
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        problems.push(`body: must be a JSON object (got ${JSON.stringify(body)})`);
      } else if (!check(body)) {
        problems.push(...check.errors!.map((error) => describeError('body', error)));
      }
    }
    if (operation.perPage !== undefined && query.per_page !== undefined) {
      const perPage = Number(query.per_page);
      const { min, max } = operation.perPage;
      if (!Number.isInteger(perPage) || perPage < min || perPage > max) {
        problems.push(`query.per_page: ${String(query.per_page)} is outside the schema's bounds ${min}..${max}`);
      }
    }
    for (const key of operation.wildcards ?? []) {
      const value = query[key];
      if (typeof value !== 'string') continue;
      for (const item of value.split(',')) {
        if (item.slice(1, -1).includes('*')) {
          problems.push(`query.${key}: "${item}" has a * that is neither at its start nor at its end`);
        }
      }
    }
    return problems.map((problem) => `${name}: ${problem}`);
  }

  /**
   * Every way an answer of `operationId` breaks the SDK's response type: its `result` (or items, or
   * the whole body, as the operation's {@link AnswerShape} says) validated against it, or a 204's body.
   */
  answerProblems(operationId: string, status: number, body: unknown): string[] {
    const operation = this.operation(operationId);
    const name = `${operation.id} answer`;
    if (operation.answer === 'empty') {
      return status === 204 && (body === undefined || body === null || body === '')
        ? []
        : [`${name}: expected HTTP 204 with no body, got ${status} ${JSON.stringify(body)?.slice(0, 200)}`];
    }
    if (status !== 200) return [`${name}: expected HTTP 200, got ${status} ${JSON.stringify(body)?.slice(0, 200)}`];
    const check = this.answerChecks.get(operation.id)!;
    const validate = (value: unknown, where: string): string[] =>
      check(value) ? [] : check.errors!.map((error) => `${name}: ${describeError(where, error)}`);
    if (operation.answer === 'whole') return validate(body, 'body');
    const result = (body as { result?: unknown } | null)?.result;
    if (operation.answer === 'items') {
      if (!Array.isArray(result))
        return [`${name}: result must be an array (got ${JSON.stringify(result)?.slice(0, 120)})`];
      return result.flatMap((item, index) => validate(item, `result[${index}]`));
    }
    return validate(result, 'result');
  }
}

/**
 * The vendor's shapes of `operations` (default: all of {@link VENDOR_OPERATIONS}), from the SDK's
 * declarations (generated, or read from the cache of an earlier run).
 */
export function loadVendorShapes(operations: readonly VendorOperation[] = VENDOR_OPERATIONS): VendorShapes {
  const types = operations.flatMap((operation) => [
    { module: operation.module, type: operation.params },
    ...(operation.response !== undefined ? [{ module: operation.module, type: operation.response }] : []),
  ]);
  const unique = [...new Map(types.map((t) => [`${t.module}#${t.type}`, t])).values()];
  return new VendorShapes(operations, generateSdkSchemas(unique));
}
