import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build, type Plugin } from 'esbuild';

/**
 * Builds a provider plugin as one executable that needs no Node.js on the user's machine (Node's
 * single executable applications): esbuild bundles the compiled server into one CommonJS file,
 * `node --experimental-sea-config` turns it into a blob, and the blob is injected into a stripped
 * copy of the node that runs this script (Node 24 from .tools). Then the release archive that
 * `pulumi plugin install resource <name> <version> --file <archive>` takes.
 *
 * The binary is rebuilt only when its inputs change: the bundle, the assets, the node binary and
 * the SEA configuration, hashed into a stamp beside it. Most of `npm run build` is then the
 * bundle (about half a second), not the copy, strip and injection of 110 MB.
 *
 * `npm run build` builds `pulumi-resource-edgeguard` (scripts/build.sh); the benchmarks build an
 * echo plugin with the same function.
 */

/** The fuse Node's single executables look for (its `postject` sentinel). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** What to build. */
export interface PluginBuild {
  /** The compiled entry point, such as `dist/provider/plugin/main.js`. */
  entry: string;
  /** The package name: the plugin is `pulumi-resource-<name>`. */
  name: string;
  /** The plugin's version (`package.json`'s), in the archive's name. */
  version: string;
  /** The folder of the executable and its archive. */
  outDir: string;
  /** Files the program reads with `require('node:sea').getAsset(key)`, by key. */
  assets?: Record<string, string>;
  /**
   * Compiled modules bundled in place of others, by the absolute path of the replaced one (the
   * benchmarks' echo plugin: the same server with an echo in place of one runtime).
   */
  substitutes?: Record<string, string>;
}

/** What was built. */
export interface BuiltPlugin {
  /** `<outDir>/pulumi-resource-<name>`. */
  binary: string;
  /** `<outDir>/pulumi-resource-<name>-v<version>-linux-amd64.tar.gz`. */
  archive: string;
  /** False when the stamp matched and nothing was rebuilt. */
  rebuilt: boolean;
}

/** The platform part of a release archive's name, as Pulumi spells it (`linux-amd64`). */
function platform(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return `${process.platform}-${arch}`;
}

/** An esbuild plugin that resolves each relative import of a key of `substitutes` to its value. */
function substituting(substitutes: Record<string, string>): Plugin {
  return {
    name: 'substitutes',
    setup(bundler) {
      bundler.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = path.resolve(args.resolveDir, args.path);
        const replacement = substitutes[target] ?? substitutes[`${target}.js`];
        return replacement === undefined ? undefined : { path: replacement };
      });
    },
  };
}

/** Bundles, makes the blob, injects it into a stripped copy of node, and archives it. */
export async function buildPlugin(plugin: PluginBuild): Promise<BuiltPlugin> {
  const executable = `pulumi-resource-${plugin.name}`;
  const binary = path.join(plugin.outDir, executable);
  const archive = path.join(plugin.outDir, `${executable}-v${plugin.version}-${platform()}.tar.gz`);
  const work = path.join(plugin.outDir, `${executable}.build`);
  fs.mkdirSync(work, { recursive: true });

  const bundle = path.join(work, 'bundle.js');
  await build({
    entryPoints: [plugin.entry],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    logLevel: 'warning',
    plugins: [substituting(plugin.substitutes ?? {})],
  });

  const seaConfig = {
    main: bundle,
    output: path.join(work, 'sea.blob'),
    disableExperimentalSEAWarning: true,
    // V8's code cache of the bundle, made at build time: the plugin starts serving sooner (measured
    // in docs-draft/plugin-build.md) for about a megabyte more.
    useCodeCache: true,
    // The plugin runs as the engine's child with the user's environment: a NODE_OPTIONS meant for
    // their own Node programs (a `--require` of a file that is not there, a debugger flag) must not
    // change or break it.
    execArgvExtension: 'none',
    assets: plugin.assets ?? {},
  };
  const stamp = createHash('sha256');
  stamp.update(fs.readFileSync(bundle));
  for (const [key, file] of Object.entries(seaConfig.assets)) stamp.update(key).update(fs.readFileSync(file));
  const node = fs.statSync(process.execPath);
  stamp.update(`${process.execPath} ${process.version} ${node.size} ${node.mtimeMs} ${JSON.stringify(seaConfig)}`);
  const digest = stamp.digest('hex');
  const stampFile = path.join(work, 'stamp');
  const current = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8') : '';
  if (current === digest && fs.existsSync(binary) && fs.existsSync(archive)) return { binary, archive, rebuilt: false };

  const configFile = path.join(work, 'sea-config.json');
  fs.writeFileSync(configFile, JSON.stringify(seaConfig, null, 2));
  execFileSync(process.execPath, ['--experimental-sea-config', configFile], { stdio: 'ignore' });
  const staged = path.join(work, executable);
  fs.copyFileSync(process.execPath, staged);
  fs.chmodSync(staged, 0o755);
  // Node's symbols are a fifth of its size and nothing at run time reads them.
  execFileSync('strip', [staged], { stdio: 'pipe' });
  // postject's CLI in a child process, whose output is kept out of the build's: its ELF library
  // warns about every note section of node, which is harmless.
  execFileSync(
    process.execPath,
    [require.resolve('postject/dist/cli.js'), staged, 'NODE_SEA_BLOB', seaConfig.output, '--sentinel-fuse', SEA_FUSE],
    { stdio: 'pipe' },
  );
  fs.renameSync(staged, binary);
  // gzip's fastest level: the build waits for it before any test runs, and it took 1.8 s here
  // against 4.8 s at the default level, for an archive of 45 MB against 41.
  execFileSync('tar', ['--use-compress-program=gzip -1', '-cf', archive, '-C', plugin.outDir, executable]);
  fs.writeFileSync(stampFile, digest);
  return { binary, archive, rebuilt: true };
}

if (require.main === module) {
  const root = path.resolve(__dirname, '..', '..');
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const outDir = path.join(root, 'dist', 'plugin');
  buildPlugin({
    entry: path.join(root, 'dist', 'provider', 'plugin', 'main.js'),
    name: 'edgeguard',
    version,
    outDir,
    assets: { 'schema.json': path.join(outDir, 'schema.json') },
  }).then(
    (built) => console.log(`${built.rebuilt ? 'built' : 'up to date'}: ${path.relative(root, built.archive)}`),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
