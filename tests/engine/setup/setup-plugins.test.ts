import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../../helpers/repo';

/**
 * scripts/setup-plugins.sh, run from a copy of the repository's set-up (its own `.tools/`, so the
 * project's plugin cache is not touched) with the real engine. The download is made impossible
 * (HTTPS_PROXY on a closed port, refused at once), so the archive route runs whatever the
 * machine's network: installed from a checked archive, then nothing to do; a missing or altered
 * archive fails saying what to provide.
 */

const ARCHIVE_NAME = 'pulumi-resource-command-v1.2.1-linux-amd64.tar.gz';
const ARCHIVE_SHA256 = '76fee38597606d1b239c5e53d2b5da862b757df7b51b62e8263e2254ccc23b55';
/** Where the set-up finds the release archive: EDGEGUARD_PLUGIN_ARCHIVES, else ../shared/plugins (its README). */
const ARCHIVES = process.env.EDGEGUARD_PLUGIN_ARCHIVES || path.resolve(REPO, '..', 'shared', 'plugins');

let root: string;

beforeEach(() => {
  fs.mkdirSync(path.join(REPO, '.edgeguard'), { recursive: true });
  root = fs.mkdtempSync(path.join(REPO, '.edgeguard', 'setup-plugins-'));
  fs.mkdirSync(path.join(root, 'scripts'));
  fs.copyFileSync(path.join(REPO, 'scripts', 'setup-plugins.sh'), path.join(root, 'scripts', 'setup-plugins.sh'));
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ dependencies: { '@pulumi/command': '1.2.1' } }));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function setup(archives: string): { status: number | null; stderr: string } {
  const run = spawnSync('bash', [path.join(root, 'scripts', 'setup-plugins.sh')], {
    encoding: 'utf8',
    env: {
      ...process.env,
      HTTPS_PROXY: 'http://127.0.0.1:1',
      HTTP_PROXY: 'http://127.0.0.1:1',
      EDGEGUARD_PLUGIN_ARCHIVES: archives,
    },
  });
  return { status: run.status, stderr: run.stderr };
}

const installed = () =>
  path.join(root, '.tools', 'pulumi-home', 'plugins', 'resource-command-v1.2.1', 'pulumi-resource-command');

const hasArchive = fs.existsSync(path.join(ARCHIVES, ARCHIVE_NAME));
// Only a machine that was given the release archive can install from it.
(hasArchive ? test : test.skip)(
  'without a download, installs from the checked archive and says so; then there is nothing to do',
  () => {
    const first = setup(ARCHIVES);
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(
      /^setup-plugins: could not download pulumi-resource-command v1\.2\.1 in \d+ s \(error: .*failed to download plugin.*\); installing it from /m,
    );
    expect(first.stderr).toContain(
      `setup-plugins: installed pulumi-resource-command v1.2.1 from ${ARCHIVES}/${ARCHIVE_NAME} (SHA-256 checked) into .tools/pulumi-home/plugins`,
    );
    expect(fs.statSync(installed()).mode & 0o111).not.toBe(0);

    const second = setup(ARCHIVES);
    expect(second).toEqual({ status: 0, stderr: '' });
  },
  60_000,
);

test('with no archive either, fails saying what to provide', () => {
  const empty = path.join(root, 'no-archives');
  fs.mkdirSync(empty);
  const run = setup(empty);
  expect(run.status).toBe(1);
  expect(run.stderr).toContain(
    `setup-plugins: cannot install pulumi-resource-command v1.2.1, the engine plugin of @pulumi/command: the download failed (`,
  );
  expect(run.stderr).toContain(`and ${empty}/${ARCHIVE_NAME} does not exist.`);
  expect(run.stderr).toContain(
    `give this machine access to get.pulumi.com, or put the release archive ${ARCHIVE_NAME} (SHA-256 ${ARCHIVE_SHA256}) in ${empty}`,
  );
  expect(fs.existsSync(installed())).toBe(false);
}, 60_000);

test('an archive that is not the release (another SHA-256) is refused before installing', () => {
  const forged = path.join(root, 'forged');
  fs.mkdirSync(forged);
  fs.writeFileSync(path.join(forged, ARCHIVE_NAME), 'not the release');
  const run = setup(forged);
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(
    new RegExp(`${forged}/${ARCHIVE_NAME} has SHA-256 [0-9a-f]{64}, not the release's ${ARCHIVE_SHA256}\\.`),
  );
  expect(fs.existsSync(installed())).toBe(false);
}, 60_000);
