import * as fs from 'node:fs';
import * as path from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import { runtimeProvider } from '../../provider/resources/shim';

/**
 * What Pulumi writes into the state of every resource (`__provider`) and runs on refresh and
 * delete: the serialized provider object. It must stay small, hold no credential, and load the
 * package's compiled runtime by name.
 */

const RUNTIMES = [
  'page-security-setting',
  'csp-policy',
  'custom-hostname',
  'health-notification',
  'pool-notification-migration',
];
const METHODS = ['configure', 'check', 'diff', 'create', 'read', 'update', 'delete'];
const SECRET = 'serialization-test-secret-token';

beforeAll(() => {
  if (!fs.existsSync(path.resolve(__dirname, '..', '..', 'dist', 'provider', 'runtime', 'csp-policy.js'))) {
    throw new Error('dist/ is missing: run "npm run build" first (npm test does)');
  }
  process.env.EDGEGUARD_API_TOKEN = SECRET;
});
afterAll(() => {
  delete process.env.EDGEGUARD_API_TOKEN;
});

test.each(RUNTIMES)(
  'the serialized %s provider is small, holds no credential, and names only its runtime',
  async (runtime) => {
    const provider = runtimeProvider(runtime);
    // As the SDK's dynamic.Resource does it: a factory returning the provider object.
    const serialized = await pulumi.runtime.serializeFunction(() => provider, {
      isFactoryFunction: true,
      allowSecrets: false,
    });
    console.log(`serialized ${runtime} provider: ${serialized.text.length} bytes`);
    expect(serialized.text.length).toBeLessThan(4096);
    expect(serialized.text).not.toContain(SECRET);
    expect(serialized.text).toContain(`pulumi-edgeguard/runtime/`);
    expect(serialized.text).not.toMatch(/zod|undici|fastify/);
  },
);

test.each(RUNTIMES)('pulumi-edgeguard/runtime/%s resolves to the compiled runtime with every method', (runtime) => {
  const resolved = require.resolve(`pulumi-edgeguard/runtime/${runtime}`);
  expect(path.relative(path.resolve(__dirname, '..', '..'), resolved)).toBe(
    path.join('dist', 'provider', 'runtime', `${runtime}.js`),
  );
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the compiled file the engine would load
  const { provider } = require(resolved) as { provider: Record<string, unknown> };
  for (const method of METHODS) expect(typeof provider[method]).toBe('function');
});
