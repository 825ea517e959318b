import * as path from 'node:path';
import { runToEnd } from '../../helpers/process';
import { REPO } from '../../helpers/repo';

/**
 * The engine tests' helper runs `pulumi` itself, as the package's commands do
 * (provider/stack/stack-commands.ts), and loads no Pulumi SDK: `@pulumi/pulumi/automation` loads
 * the whole SDK, about 770 modules and 1 to 1.7 s of CPU inside jest, in each of the thirty-odd
 * engine test files, and its `PulumiCommand.get` runs `pulumi version` once per file besides.
 */

const HELPER = path.join(REPO, 'tests', 'helpers', 'engine.ts');

test('tests/helpers/engine.ts loads no module of @pulumi/pulumi: it only imports its types', async () => {
  // A node of its own (jest's module registry is not `require.cache`) that strips the types of the
  // helper and what it imports, as jest's transform does, then lists every module it loaded.
  const run = await runToEnd(
    process.execPath,
    [
      '-r',
      'ts-node/register/transpile-only',
      '-e',
      `process.on('exit', () => console.error(JSON.stringify(Object.keys(require.cache))));
     require(${JSON.stringify(HELPER)});`,
    ],
    { cwd: REPO },
  );
  expect(run.status).toBe(0);
  const loaded = JSON.parse(run.stderr.trim().split('\n').at(-1)!) as string[];
  expect(loaded).toContain(HELPER);
  expect(loaded.filter((file) => file.includes(`${path.sep}@pulumi${path.sep}`))).toEqual([]);
});
