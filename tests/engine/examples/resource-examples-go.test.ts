import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../../helpers/repo';
import { runToEnd } from '../../helpers/process';

/**
 * The Go examples of the reference pages (examples/resources/<Resource>/main.go, shown by
 * docs/resources/<Resource>.md) compile against the checked-in Go SDK: `go vet` type-checks them
 * with the module's checksums (-mod=readonly), offline like the Go example's build. The first run
 * on a machine compiles the Pulumi Go SDK (about a minute on two quiet cores, shared with that
 * build through Go's cache); then it takes under a second. On a fresh clone jest starts the engine
 * files first, so that compile meets the Go example's and two other engine files on the same cores:
 * it took over 300 s so once (2026-11-29, on a machine busy with other work too), hence ten minutes.
 */

const EXAMPLES = path.join(REPO, 'examples', 'resources');

test('every Go example of the reference pages passes go vet', async () => {
  const packages = fs.readdirSync(EXAMPLES).filter((entry) => fs.existsSync(path.join(EXAMPLES, entry, 'main.go')));
  expect(packages.length).toBeGreaterThanOrEqual(6);
  const vet = await runToEnd('go', ['vet', ...packages.map((name) => `./${name}`)], {
    cwd: EXAMPLES,
    env: { GOFLAGS: '-mod=readonly', GOTOOLCHAIN: 'local' },
  });
  if (vet.status !== 0) throw new Error(`go vet of examples/resources failed:\n${vet.stderr}`);
}, 600_000);
