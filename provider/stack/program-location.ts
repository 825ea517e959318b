import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProjectSettings } from '@pulumi/pulumi/automation';
import { z } from 'zod';

/**
 * Where in the program a policy violation is (issue 24, item 6): the line that declares the
 * violating resource, as the engine recorded it, else the program's main file.
 *
 * The engine records where a resource was registered (the SDK sends the call's source position
 * and stack trace with each registration) only in the stack's state: a preview's events carry no
 * position, nor does what a policy pack is given. So a resource is located where the last
 * deployment registered it (`pulumi stack export`, the review's baseline), and a resource the
 * stack does not hold yet is not located at all.
 */

/** Where a program declares a resource: a file of the program's folder, its line (1-based) and column. */
export interface SourceLocation {
  file: string;
  line: number;
  column?: number;
}

/**
 * A recorded position: `project:///<path>#<line>[,<column>]`, the path relative to the project
 * folder (the engine writes `../` for a file above it), percent-encoded as a URI path.
 */
const PROJECT_POSITION = /^project:\/\/\/([^#]*)#(\d+)(?:,(\d+))?$/;

/**
 * A position the engine recorded, as a location in the program itself; `undefined` for one in a
 * file above the project folder or under `node_modules` (a library's code: the resource classes
 * of a package, a component's constructor), and for a form the engine does not write.
 */
export function programPosition(uri: string): SourceLocation | undefined {
  const match = PROJECT_POSITION.exec(uri);
  if (match === null) return undefined;
  const file = path.posix.normalize(decodeURIComponent(match[1]!));
  const segments = file.split('/');
  if (path.posix.isAbsolute(file) || segments[0] === '..' || segments.includes('node_modules')) return undefined;
  const line = Number(match[2]);
  if (line < 1) return undefined;
  return { file, line, ...(match[3] !== undefined && Number(match[3]) >= 1 ? { column: Number(match[3]) } : {}) };
}

/** What this reads of a `pulumi stack export`: each resource's recorded registration. */
const exportedPositionsSchema = z.object({
  deployment: z.object({
    resources: z
      .array(
        z.object({
          urn: z.string(),
          sourcePosition: z.string().optional(),
          stackTrace: z.array(z.object({ sourcePosition: z.string().optional() })).optional(),
        }),
      )
      .nullish(),
  }),
});

/**
 * Where the program declares each resource of a stack's state (`pulumi stack export`), by URN:
 * the first frame of its registration that is in the program itself. The engine's own
 * `sourcePosition` is the frame just under the SDK's resource classes, which for a class that
 * extends them again (EdgeGuard's resources, a component's children) is inside that class, so the
 * recorded stack trace is searched down to the program's line.
 */
export function declarationsIn(exported: unknown): Map<string, SourceLocation> {
  const parsed = exportedPositionsSchema.safeParse(exported);
  if (!parsed.success)
    throw new Error(`the stack's state is not a deployment this review can read: ${z.prettifyError(parsed.error)}`);
  const declared = new Map<string, SourceLocation>();
  for (const resource of parsed.data.deployment.resources ?? []) {
    const frames = [resource.sourcePosition, ...(resource.stackTrace ?? []).map((frame) => frame.sourcePosition)];
    for (const frame of frames) {
      const location = frame !== undefined ? programPosition(frame) : undefined;
      if (location === undefined) continue;
      declared.set(resource.urn, location);
      break;
    }
  }
  return declared;
}

/**
 * The violations, each with where the program declares its resource (see {@link declarationsIn})
 * when the program still has that file and line: the position is the last deployment's, and a
 * file the change removed or cut short cannot hold it any more.
 */
export function locateViolations<Violation extends { urn?: string; declaredAt?: SourceLocation }>(
  violations: Violation[],
  exported: unknown,
  workDir: string,
): Violation[] {
  const declared = declarationsIn(exported);
  const lineCounts = new Map<string, number>();
  const linesOf = (file: string): number => {
    let count = lineCounts.get(file);
    if (count === undefined) {
      const full = path.join(workDir, file);
      const text = fs.statSync(full, { throwIfNoEntry: false })?.isFile() ? fs.readFileSync(full, 'utf8') : '';
      // The last line needs no line break after it.
      count = (text.match(/\n/g)?.length ?? 0) + (text.length > 0 && !text.endsWith('\n') ? 1 : 0);
      lineCounts.set(file, count);
    }
    return count;
  };
  return violations.map((violation) => {
    const location = violation.urn !== undefined ? declared.get(violation.urn) : undefined;
    return location !== undefined && location.line <= linesOf(location.file)
      ? { ...violation, declaredAt: location }
      : violation;
  });
}

/**
 * The files a runtime starts a program from, in a folder, most likely first (Pulumi's project
 * file reference: `main` names the program's file or folder; the YAML runtime reads `Main.yaml`
 * there, else the program in `Pulumi.yaml`).
 */
const ENTRY_FILES: Record<string, string[]> = {
  nodejs: ['index.ts', 'index.js'],
  bun: ['index.ts', 'index.js'],
  yaml: ['Main.yaml'],
  go: ['main.go'],
  python: ['__main__.py'],
  dotnet: ['Program.cs', 'Program.fs'],
};

/** The project file, under either name the engine reads. */
const PROJECT_FILES = ['Pulumi.yaml', 'Pulumi.yml'] as const;

/**
 * The program's main file, relative to the project folder `workDir` (with `/`): Pulumi.yaml's
 * `main` when it names a file, else the runtime's entry file in `main`'s folder (the project
 * folder by default), else the project file itself (`Pulumi.yaml`), which every project has.
 */
export function mainFileOf(workDir: string, settings: ProjectSettings): string {
  const runtime = typeof settings.runtime === 'string' ? settings.runtime : settings.runtime?.name;
  const main = path.resolve(workDir, settings.main ?? '.');
  const stat = fs.statSync(main, { throwIfNoEntry: false });
  const candidates = [
    ...(stat?.isFile() ? [main] : (ENTRY_FILES[runtime ?? ''] ?? []).map((name) => path.join(main, name))),
    ...PROJECT_FILES.map((name) => path.join(workDir, name)),
  ];
  const found = candidates.find((file) => fs.statSync(file, { throwIfNoEntry: false })?.isFile());
  return path
    .relative(workDir, found ?? path.join(workDir, PROJECT_FILES[0]))
    .split(path.sep)
    .join('/');
}

/**
 * The project folder's path in the repository that holds it (the nearest folder above with
 * `.git`), with `/`, `''` when it is the repository's root; without a repository, `''`: paths are
 * then relative to the project folder. Code scanning places a result by its path from the
 * repository's root.
 */
export function pathInRepository(workDir: string): string {
  const project = path.resolve(workDir);
  for (let dir = project; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, '.git'))) return path.relative(dir, project).split(path.sep).join('/');
    if (dir === path.dirname(dir)) return '';
  }
}
