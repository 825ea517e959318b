import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { REPO } from '../../helpers/repo';

/**
 * The house's floors, as CONTRIBUTING.md's table "The package, floor by floor" states them, hold in the code: every
 * source file of `rules/`, `emulator/` and `provider/` stands on a floor of the table, imports only
 * from its own floor or lower ones, and no import goes round in a circle. Type imports count: a
 * type import up a floor ties the lower floor to the higher one just as much.
 */

const HOUSE = ['rules', 'emulator', 'provider'];

/** A row of the table: the paths it names (a folder ends in `/`) and its floor; `apart` for the emulator. */
interface Floor {
  paths: string[];
  floor: number | 'apart';
}

/** The rows of CONTRIBUTING.md's table of floors. */
function floorsTable(): Floor[] {
  const text = fs.readFileSync(path.join(REPO, 'CONTRIBUTING.md'), 'utf8');
  const section = /^### The package, floor by floor\n([^]*?)(?=^#{2,3} )/m.exec(text)?.[1];
  if (section === undefined) throw new Error('CONTRIBUTING.md has no "### The package, floor by floor" section');
  return section
    .split('\n')
    .filter((line) => /^\| (\d+|apart) \|/.test(line))
    .map((line) => {
      const [floor, paths] = line
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim());
      return {
        floor: floor === 'apart' ? 'apart' : Number(floor),
        paths: [...paths!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!),
      };
    });
}

function sourceFiles(): string[] {
  return HOUSE.flatMap((folder) =>
    fs
      .readdirSync(path.join(REPO, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
      .map((file) => path.posix.join(folder, file.split(path.sep).join('/'))),
  );
}

/** The row whose path is the longest prefix of `file` (a file named exactly, or its folder). */
function floorOf(table: Floor[], file: string): Floor | undefined {
  let best: { row: Floor; length: number } | undefined;
  for (const row of table)
    for (const p of row.paths)
      if ((p.endsWith('/') ? file.startsWith(p) : file === p) && (best === undefined || p.length > best.length))
        best = { row, length: p.length };
  return best?.row;
}

/** The files of the house that `file` imports: import and export declarations, type imports, `require`, `import()`. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(fs.readFileSync(path.join(REPO, file), 'utf8'), true, true);
  return info.importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'))
    .flatMap((name) => {
      const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), name));
      const found = [`${base}.ts`, `${base}/index.ts`, base].find((candidate) =>
        fs.statSync(path.join(REPO, candidate), { throwIfNoEntry: false })?.isFile(),
      );
      return found === undefined ? [] : [found];
    });
}

const table = floorsTable();
const files = sourceFiles();
const graph = new Map(files.map((file) => [file, importsOf(file)]));

test('the table has rows, and every source file of the house stands on one of its floors', () => {
  expect(table.length).toBeGreaterThan(5);
  expect(files.filter((file) => floorOf(table, file) === undefined)).toEqual([]);
});

test('no file imports from a floor above its own, and nothing but the emulator imports the emulator', () => {
  const upward: string[] = [];
  for (const [file, imports] of graph) {
    const from = floorOf(table, file)!.floor;
    for (const imported of imports) {
      const to = floorOf(table, imported)!.floor;
      const allowed = from === 'apart' ? to === 'apart' || to === 0 : to !== 'apart' && to <= from;
      if (!allowed) upward.push(`${file} (floor ${from}) imports ${imported} (floor ${to})`);
    }
  }
  expect(upward).toEqual([]);
});

test('no import circle, type imports counted', () => {
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    trail.push(file);
    for (const imported of graph.get(file) ?? []) {
      if (state.get(imported) === 'open')
        circles.push([...trail.slice(trail.indexOf(imported)), imported].join(' -> '));
      else if (!state.has(imported)) visit(imported);
    }
    trail.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  expect(circles).toEqual([]);
});

test('the check sees a type import: the table would refuse runtime/ importing a host', () => {
  const runtimeFloor = floorOf(table, 'provider/runtime/contract.ts')!.floor;
  const hostFloor = floorOf(table, 'provider/dynamic/provider.ts')!.floor;
  expect(typeof runtimeFloor === 'number' && typeof hostFloor === 'number' && runtimeFloor < hostFloor).toBe(true);
  const info = ts.preProcessFile(
    "import type { X } from '../dynamic/provider';\nexport type Y = import('./z').Z;",
    true,
    true,
  );
  expect(info.importedFiles.map((imported) => imported.fileName)).toEqual(['../dynamic/provider', './z']);
});
