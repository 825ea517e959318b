import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import * as ts from 'typescript';
import { REPO } from './repo';

/**
 * Checks of the TypeScript programs the commands write (`edgeguard-import`, `edgeguard-inventory`):
 * Prettier's verdict on their layout, and TypeScript's on their types against the package.
 */

/** Prettier with its default options (run apart: its module loads itself with `import()`, which jest cannot). */
export function prettierFormat(code: string): string {
  const run = spawnSync(
    process.execPath,
    [require.resolve('prettier/bin/prettier.cjs'), '--no-config', '--stdin-filepath', 'index.ts'],
    {
      input: code,
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`prettier failed: ${run.stderr}`);
  return run.stdout;
}

/**
 * The type errors of `text` as a program of its own, `pulumi-edgeguard` resolved to the package's
 * sources, each as `file: message`; `[]` when it type-checks. `name` names the file the program is
 * checked as (under `.edgeguard/unit/`, never written).
 */
export function typeErrors(text: string, name: string): string[] {
  const file = path.join(REPO, '.edgeguard', 'unit', `${name}-${process.pid}.ts`);
  const host = ts.createCompilerHost({});
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => (path.resolve(fileName) === file ? text : readFile(fileName));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => path.resolve(fileName) === file || fileExists(fileName);
  const compiled = ts.createProgram({
    rootNames: [file],
    options: {
      noEmit: true,
      strict: true,
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      skipLibCheck: true,
      paths: { 'pulumi-edgeguard': [path.join(REPO, 'provider', 'index.ts')] },
    },
    host,
  });
  return ts
    .getPreEmitDiagnostics(compiled)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/**
 * The value a literal of a written program holds, read back with TypeScript's parser: a string, a
 * boolean, an array or object of them, a shorthand property `name` as `<name>`; any other
 * expression, at any depth, is what `other` makes of it (by default an error naming its kind).
 */
export function literalValue(node: ts.Expression, other: (node: ts.Expression) => unknown = unexpected): unknown {
  if (ts.isStringLiteral(node)) return node.text;
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (ts.isArrayLiteralExpression(node)) return node.elements.map((element) => literalValue(element, other));
  if (ts.isObjectLiteralExpression(node)) {
    return Object.fromEntries(
      node.properties.map((property) => {
        if (ts.isShorthandPropertyAssignment(property)) return [property.name.text, `<${property.name.text}>`];
        if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) throw new Error('unexpected');
        return [property.name.text, literalValue(property.initializer, other)];
      }),
    );
  }
  return other(node);
}

function unexpected(node: ts.Expression): never {
  throw new Error(`unexpected ${ts.SyntaxKind[node.kind]}`);
}
