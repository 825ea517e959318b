import fc from 'fast-check';
import { Agent } from 'undici';
import {
  customHostnames,
  HttpClient,
  loadBalancing,
  notifications,
  pageSecurity,
  resolveSettings,
} from '../../../provider/client';
import { readAll as all, startAnswerServer, type AnswerServer } from '../../helpers/answer-server';
import { answersOf, type GeneratedAnswer, type IdForm } from '../../helpers/vendor-answers';
import { loadVendorShapes, VENDOR_SDK, type VendorShapes } from '../../helpers/vendor-shapes';

/**
 * EdgeGuard's client (`provider/client/`) on answers the vendor may give (issue 42, "Done when": 0
 * answers of the vendor's schema refused by the client): for every operation the client uses,
 * answers generated from the vendor SDK's declared response type (`cloudflare` 7.1.0,
 * `tests/helpers/vendor-answers.ts`) are served by a small local HTTP server, whatever the path the
 * client asks for, and the client must read each one. A rejection is listed with the operation, the
 * client's error (which names the zod path) and the answer.
 *
 * The vendor token is `cloudflare`, the vendor's own, as in the vendor's dialect.
 */

const RUNS = 25;
const SEED = 42;
const Z = 'c0000000000000000000000000000001';
const A = 'a0000000000000000000000000000001';
const ID = 'f0000000000000000000000000000001';

/** What the client is asked to do for each operation, with the ids its answers carry. */
const CALLS: Array<{ operation: string; ids: IdForm; call: (client: HttpClient) => Promise<unknown> }> = [
  { operation: 'pageShield.get', ids: 'hex', call: (c) => pageSecurity.getSettings(c, Z) },
  { operation: 'pageShield.update', ids: 'hex', call: (c) => pageSecurity.updateSettings(c, Z, { enabled: true }) },
  { operation: 'pageShield.scripts.list', ids: 'hex', call: (c) => all(pageSecurity.listScripts(c, Z, {}, 100)) },
  { operation: 'pageShield.scripts.get', ids: 'hex', call: (c) => pageSecurity.getScript(c, Z, ID) },
  {
    operation: 'pageShield.connections.list',
    ids: 'hex',
    call: (c) => all(pageSecurity.listConnections(c, Z, {}, 100)),
  },
  { operation: 'pageShield.connections.get', ids: 'hex', call: (c) => pageSecurity.getConnection(c, Z, ID) },
  { operation: 'pageShield.cookies.list', ids: 'hex', call: (c) => all(pageSecurity.listCookies(c, Z, {}, 100)) },
  { operation: 'pageShield.cookies.get', ids: 'hex', call: (c) => pageSecurity.getCookie(c, Z, ID) },
  {
    operation: 'pageShield.policies.create',
    ids: 'hex',
    call: (c) =>
      pageSecurity.createPolicy(c, Z, {
        description: '',
        action: 'log',
        expression: 'http.host eq "example.com"',
        enabled: 'true',
        value: "script-src 'self'",
      }),
  },
  { operation: 'pageShield.policies.list', ids: 'hex', call: (c) => pageSecurity.listPolicies(c, Z) },
  { operation: 'pageShield.policies.get', ids: 'hex', call: (c) => pageSecurity.getPolicy(c, Z, ID) },
  {
    operation: 'pageShield.policies.update',
    ids: 'hex',
    call: (c) =>
      pageSecurity.updatePolicy(c, Z, ID, {
        description: '',
        action: 'log',
        expression: 'http.host eq "example.com"',
        enabled: 'true',
        value: "script-src 'self'",
      }),
  },
  { operation: 'pageShield.policies.delete', ids: 'hex', call: (c) => pageSecurity.deletePolicy(c, Z, ID) },
  {
    operation: 'customHostnames.create',
    ids: 'hex',
    call: (c) =>
      customHostnames.createCustomHostname(c, Z, {
        hostname: 'shop.example.net',
        ssl: { method: 'txt', type: 'dv', certificate_authority: 'google' },
      }),
  },
  { operation: 'customHostnames.list', ids: 'hex', call: (c) => all(customHostnames.listCustomHostnames(c, Z)) },
  { operation: 'customHostnames.get', ids: 'hex', call: (c) => customHostnames.getCustomHostname(c, Z, ID) },
  {
    operation: 'customHostnames.edit',
    ids: 'hex',
    call: (c) => customHostnames.editCustomHostname(c, Z, ID, { ssl: { method: 'txt', type: 'dv' } }),
  },
  { operation: 'customHostnames.delete', ids: 'hex', call: (c) => customHostnames.deleteCustomHostname(c, Z, ID) },
  { operation: 'loadBalancers.pools.list', ids: 'hex', call: (c) => loadBalancing.listPools(c, { accountId: A }) },
  {
    operation: 'loadBalancers.pools.bulkEdit',
    ids: 'hex',
    call: (c) => loadBalancing.bulkEditPools(c, { accountId: A, notificationEmail: '', page: 1, perPage: 100 }),
  },
  {
    operation: 'alerting.policies.list',
    ids: 'uuid',
    call: (c) => notifications.listAlertPolicies(c, { accountId: A }),
  },
  {
    operation: 'alerting.policies.get',
    ids: 'uuid',
    call: (c) => notifications.getAlertPolicy(c, { accountId: A, policyId: ID }),
  },
  {
    operation: 'alerting.policies.create',
    ids: 'uuid',
    call: (c) => notifications.createAlertPolicy(c, { accountId: A, policy: ALERT_BODY }),
  },
  {
    operation: 'alerting.policies.update',
    ids: 'uuid',
    call: (c) => notifications.updateAlertPolicy(c, { accountId: A, policyId: ID, policy: ALERT_BODY }),
  },
  {
    operation: 'alerting.policies.delete',
    ids: 'uuid',
    call: (c) => notifications.deleteAlertPolicy(c, { accountId: A, policyId: ID }),
  },
];

const ALERT_BODY = {
  name: 'Pool health',
  description: '',
  enabled: true,
  alert_type: 'load_balancing_health_alert',
  mechanisms: { email: [{ id: 'ops@example.com' }] },
  filters: { pool_id: [ID] },
};

let shapes: VendorShapes;
let server: AnswerServer | undefined;
let client: HttpClient;
/** The client's own connection pool, closed when the file ends (not the process-wide one). */
const agent = new Agent();
/** What the server answers to every request, whatever its path. */
let current: GeneratedAnswer = { status: 204, body: undefined };
/** The client's clock (ms), moved by its pauses only. */
let clock = Date.parse('2026-01-01T00:00:00.000Z');

beforeAll(async () => {
  shapes = loadVendorShapes();
  server = await startAnswerServer(() => current);
  client = new HttpClient(
    resolveSettings({
      explicit: {
        baseUrl: server.baseUrl,
        apiToken: 'vendor-answers-token',
        vendor: 'cloudflare',
      },
      env: {},
    }),
    // One attempt, and a clock of its own that a pause moves at once: the client's pacing (its API
    // budget, the custom hostnames' issuance pace) costs no real time against a server that counts nothing.
    { maxAttempts: 1, dispatcher: agent, sleep: async (ms) => void (clock += ms), now: () => clock },
  );
}, 120_000);
afterAll(async () => {
  await agent.close();
  await server?.close();
});

test('every operation the client uses is one of the vendor operations checked', () => {
  const known = new Set(shapes.operations.map((operation) => operation.id));
  expect(CALLS.map((c) => c.operation).filter((operation) => !known.has(operation))).toEqual([]);
});

test(`the client reads every answer generated from the vendor SDK's response types (${VENDOR_SDK.name} ${VENDOR_SDK.version}, ${RUNS} per operation)`, async () => {
  const rejected: Array<{ operation: string; path: string; error: string; answer: GeneratedAnswer }> = [];
  let served = 0;
  for (const { operation, ids, call } of CALLS) {
    const vendorOperation = shapes.operation(operation);
    const schema = vendorOperation.answer === 'empty' ? undefined : shapes.responseSchema(operation);
    const answers = fc.sample(answersOf(vendorOperation, schema, ids), { numRuns: RUNS, seed: SEED });
    for (const answer of answers) {
      // Each generated answer is one the vendor's declared type allows: the generator is checked too.
      expect(shapes.answerProblems(operation, answer.status, answer.body)).toEqual([]);
      current = answer;
      served++;
      try {
        await call(client);
      } catch (error) {
        const message = (error as Error).message;
        const path = /promises: (\S+): /.exec(message)?.[1] ?? '(no zod path)';
        rejected.push({ operation, path, error: message, answer });
      }
    }
  }
  // One line per operation and zod path, with how many answers it refused and the first of them.
  const byPath = new Map<string, { count: number; error: string; answer: GeneratedAnswer }>();
  for (const r of rejected) {
    const key = `${r.operation} ${r.path}`;
    const seen = byPath.get(key);
    if (seen) seen.count++;
    else byPath.set(key, { count: 1, error: r.error, answer: r.answer });
  }
  const operations = new Set(rejected.map((r) => r.operation));
  const report = [...byPath.entries()].map(
    ([key, { count, error, answer }]) =>
      `${key}: ${count} of ${RUNS} refused; e.g. ${error} — answer HTTP ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 400)}`,
  );
  expect({
    summary: `${rejected.length} of ${served} answers refused, in ${operations.size} of ${CALLS.length} operations`,
    refused: report,
  }).toEqual({ summary: `0 of ${served} answers refused, in 0 of ${CALLS.length} operations`, refused: [] });
}, 300_000);
