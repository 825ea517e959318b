import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  declarationsIn,
  locateViolations,
  mainFileOf,
  pathInRepository,
  programPosition,
} from '../../../provider/stack/program-location';
import type { ReportedViolation } from '../../../provider/review/report';

/**
 * Where a violation is in the program (issue 24, item 6): the positions the engine records in the
 * stack's state, read down to the program's own line, and the program's main file.
 */

const PREFIX = 'urn:pulumi:dev::shop::';
const CHECKOUT = `${PREFIX}pulumi-nodejs:dynamic/edgeguard:CspPolicy::checkout-scripts`;
const STOREFRONT = `${PREFIX}edgeguard:index:CspPolicy::storefront-scripts`;
const STACK = `${PREFIX}pulumi:pulumi:Stack::shop-dev`;
const PROVIDER = `${PREFIX}pulumi:providers:pulumi-nodejs::default`;

/**
 * A `pulumi stack export` as engine 3.259 writes it for examples/csp-review run from a copy three
 * folders under the repository (tests/helpers/engine.ts): the SDK's position of an EdgeGuard
 * resource is inside its class, the program's line is the next frame; frames without a position
 * are empty objects. The storefront is a plugin resource declared in a file of the program's own.
 */
const EXPORTED = {
  version: 3,
  deployment: {
    manifest: { version: 'v3.259.0' },
    resources: [
      {
        urn: STACK,
        sourcePosition: 'project:///../../../node_modules/@pulumi/runtime/stack.ts#37,19',
        stackTrace: [{ sourcePosition: 'project:///../../../node_modules/@pulumi/runtime/stack.ts#37,19' }],
      },
      { urn: PROVIDER },
      {
        urn: CHECKOUT,
        sourcePosition: 'project:///../../../provider/resources/csp-policy.ts#50,5',
        stackTrace: [
          { sourcePosition: 'project:///../../../provider/resources/csp-policy.ts#50,5' },
          { sourcePosition: 'project:///index.ts#13,18' },
          {},
          { sourcePosition: 'project:///../../../node_modules/ts-node/src/index.ts#1618,23' },
        ],
      },
      {
        urn: STOREFRONT,
        sourcePosition: 'project:///node_modules/pulumi-edgeguard/dist/provider/resources/csp-policy.js#52,9',
        stackTrace: [
          { sourcePosition: 'project:///node_modules/pulumi-edgeguard/dist/provider/resources/csp-policy.js#52,9' },
          { sourcePosition: 'project:///policies/storefront%20csp.ts#4,3' },
          { sourcePosition: 'project:///index.ts#2,1' },
        ],
      },
    ],
  },
};

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-location-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(file: string, text = ''): void {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

const lines = (count: number): string => `${Array.from({ length: count }, (_, i) => `// ${i + 1}`).join('\n')}\n`;

describe('programPosition', () => {
  test.each([
    ['project:///index.ts#13,18', { file: 'index.ts', line: 13, column: 18 }],
    ['project:///Pulumi.yaml#9', { file: 'Pulumi.yaml', line: 9 }],
    ['project:///src/a%20b.ts#3,1', { file: 'src/a b.ts', line: 3, column: 1 }],
    ['project:///src/../lib/x.ts#2,4', { file: 'lib/x.ts', line: 2, column: 4 }],
  ])('%s is in the program', (uri, location) => {
    expect(programPosition(uri)).toEqual(location);
  });

  test.each([
    ['above the project folder', 'project:///../../../provider/resources/csp-policy.ts#50,5'],
    ['above it after normalizing', 'project:///src/../../x.ts#1,1'],
    ['a dependency', 'project:///node_modules/pulumi-edgeguard/dist/index.js#3,1'],
    ['a nested dependency', 'project:///lib/node_modules/x/index.js#3,1'],
    ['another scheme', 'file:///work/index.ts#13,18'],
    ['no line', 'project:///index.ts'],
    ['line 0', 'project:///index.ts#0,1'],
  ])('%s is not', (_, uri) => {
    expect(programPosition(uri)).toBeUndefined();
  });
});

describe('declarationsIn', () => {
  test("each resource at its first frame in the program: past the resource class, a library's file and empty frames", () => {
    const declared = declarationsIn(EXPORTED);
    expect(Object.fromEntries(declared)).toEqual({
      [CHECKOUT]: { file: 'index.ts', line: 13, column: 18 },
      [STOREFRONT]: { file: 'policies/storefront csp.ts', line: 4, column: 3 },
    });
  });

  test('a stack with no resources has no declarations', () => {
    expect(declarationsIn({ version: 3, deployment: { manifest: {} } }).size).toBe(0);
  });

  test('a state of another shape is refused, naming the part', () => {
    expect(() => declarationsIn({ deployment: { resources: [{ urn: CHECKOUT, sourcePosition: 13 }] } })).toThrow(
      /the stack's state is not a deployment this review can read:[\s\S]*deployment\.resources\[0\]\.sourcePosition/,
    );
  });
});

describe('locateViolations', () => {
  const violation = (urn?: string): ReportedViolation => ({
    policy: 'csp-blocks-detected-scripts',
    level: 'mandatory',
    ...(urn !== undefined ? { urn, resource: urn.split('::').pop()! } : {}),
    message: 'blocks',
  });

  test('a violation of a resource the state holds is located where the program still has that line', () => {
    // The recorded line is the file's last, with no line break after it.
    write('index.ts', lines(13).trimEnd());
    write('policies/storefront csp.ts', lines(3));
    const [checkout, storefront, stack, created] = locateViolations(
      [violation(CHECKOUT), violation(STOREFRONT), violation(), violation(`${PREFIX}x::new-policy`)],
      EXPORTED,
      dir,
    );
    expect(checkout!.declaredAt).toEqual({ file: 'index.ts', line: 13, column: 18 });
    // The change cut the file short: the recorded line is no longer there.
    expect(storefront!.declaredAt).toBeUndefined();
    expect(stack).toEqual(violation());
    expect(created!.declaredAt).toBeUndefined();
  });

  test('a file the change removed locates nothing', () => {
    const [checkout] = locateViolations([violation(CHECKOUT)], EXPORTED, dir);
    expect(checkout).toEqual(violation(CHECKOUT));
  });
});

describe('mainFileOf', () => {
  test.each([
    ['nodejs, index.ts', { runtime: 'nodejs' }, ['index.ts', 'index.js'], 'index.ts'],
    ['nodejs, JavaScript', { runtime: { name: 'nodejs', options: { typescript: false } } }, ['index.js'], 'index.js'],
    ['main names a folder', { runtime: 'nodejs', main: 'infra/' }, ['index.ts', 'infra/index.ts'], 'infra/index.ts'],
    ['main names a file', { runtime: 'nodejs', main: './src/app.ts' }, ['index.ts', 'src/app.ts'], 'src/app.ts'],
    ['YAML in Pulumi.yaml', { runtime: { name: 'yaml' } }, [], 'Pulumi.yaml'],
    ['YAML in Main.yaml', { runtime: { name: 'yaml' }, main: 'program' }, ['program/Main.yaml'], 'program/Main.yaml'],
    ['Go', { runtime: 'go' }, ['main.go'], 'main.go'],
    ['Python', { runtime: 'python' }, ['__main__.py'], '__main__.py'],
    ['no entry file found', { runtime: 'nodejs', main: 'missing/' }, ['index.ts'], 'Pulumi.yaml'],
    ['an unknown runtime', { runtime: { name: 'java' } }, ['index.ts'], 'Pulumi.yaml'],
  ] as const)('%s', (_, settings, files, main) => {
    write('Pulumi.yaml', 'name: shop\n');
    for (const file of files) write(file);
    expect(mainFileOf(dir, { name: 'shop', ...settings })).toBe(main);
  });

  test('the project file under its other name', () => {
    write('Pulumi.yml', 'name: shop\n');
    expect(mainFileOf(dir, { name: 'shop', runtime: { name: 'yaml' } })).toBe('Pulumi.yml');
  });
});

describe('pathInRepository', () => {
  test('the project folder from the root of the repository above it', () => {
    fs.mkdirSync(path.join(dir, '.git'));
    fs.mkdirSync(path.join(dir, 'infra', 'shop'), { recursive: true });
    expect(pathInRepository(path.join(dir, 'infra', 'shop'))).toBe('infra/shop');
    expect(pathInRepository(dir)).toBe('');
  });

  test('a worktree or submodule, whose .git is a file', () => {
    write('.git', 'gitdir: /elsewhere\n');
    fs.mkdirSync(path.join(dir, 'infra'));
    expect(pathInRepository(path.join(dir, 'infra'))).toBe('infra');
  });
});
