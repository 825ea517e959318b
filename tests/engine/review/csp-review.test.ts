import * as fs from 'node:fs';
import * as path from 'node:path';
import { POLICY_PACK } from '../../../provider/review/review-stack';
import { REPO } from '../../helpers/repo';
import { runToEnd } from '../../helpers/process';
import { parseSarif } from '../../helpers/sarif';
import { DEMO } from '../../../emulator/seed/demo';
import {
  checkoutReview,
  CONNECT,
  deployReviewStack,
  emu,
  engine,
  MALICIOUS,
  ORIGINAL,
  packConfig,
  PAYMENT_API,
  previewWithPack,
  propose,
  PULUMI_BIN,
  REFUSED,
  review,
  reviewOutputs,
  SKIMMER,
  STRIPE_ELEMENTS,
  TOKEN,
  weaknessesSection,
} from './csp-review-stack';

/**
 * The review before merge through the real engine, against the demo world (issue 9): the
 * examples/csp-review stack is deployed once (./csp-review-stack.ts), then a pull request's change
 * of the checkout's allow policy is reviewed with `edgeguard-review` (the settings in the stack's
 * configuration alone, the token a secret: the review gives them to the pack), case by case. The
 * review's preview is `pulumi preview --policy-pack policy-pack/edgeguard-policy-pack` with the
 * project's pack configuration, and its output goes to the review's stderr: where a case's subject
 * is the pack's verdict, the test reads it there, as the engine printed it. The pack run by hand
 * (the settings in its environment, which is what the pack reads) is the user's other path, a
 * preview apiece: a change it fails and one it passes, and without the settings in its environment
 * it says which to set. Then that the reviews wrote nothing.
 *
 * Then, on the same stack, changes beyond one policy's value, which write to the service and so
 * come after: a second allow policy on the checkout beside another team's live one, a policy
 * changed outside the stack (`--refresh --fail-on-drift`), and the pack in `pulumi up`: its CSP
 * checks are stack policies, so a mandatory violation stops `pulumi up` in the preview it makes
 * first, before any change, but `pulumi up --skip-preview` (which the Automation API's `up` always
 * passes) makes the change and reports the violation after. Last, that no review left anything
 * behind or let the token out. One stack for both, as one deployment costs an engine operation and
 * a program's run; the cores are full throughout `npm test`, so two files side by side gain nothing.
 */

const { tmp } = deployReviewStack();

test('dropping the source of a detected checkout script fails the preview, naming the script; the review exits 1', async () => {
  propose("script-src 'self' https://www.google.com/recaptcha/api.js");
  packConfig(undefined);
  const preview = await previewWithPack();
  expect(preview.failed).toBe(true);
  expect(preview.text).toContain('[mandatory]  csp-blocks-detected-scripts');
  expect(preview.text).toContain(STRIPE_ELEMENTS);
  expect(preview.text).not.toContain('[mandatory]  csp-allows-malicious-script');

  const sarifFile = path.join(engine.workDir, 'review.sarif');
  const run = await review('--sarif', sarifFile);
  // The exit status with the review's last line, which says why when the review could not be done.
  expect([run.code, run.stderr.split('\n').filter((line) => line.startsWith('edgeguard-review:'))]).toEqual([
    1,
    ['edgeguard-review: 1 mandatory policy violation'],
  ]);
  // Only the Markdown on stdout: the preview's own output went to stderr.
  expect(run.stdout.startsWith('## EdgeGuard review of')).toBe(true);
  expect(run.stdout).not.toContain('Previewing update');
  expect(run.stderr).toContain('Previewing update');
  expect(run.stdout).toContain(STRIPE_ELEMENTS);
  expect(run.stdout).toContain('Sources removed: `script-src js.stripe.com`');
  const checkout = checkoutReview(run);
  expect(checkout.scripts.newlyBlocked.lines.map((line: { url: string }) => line.url)).toEqual([STRIPE_ELEMENTS]);
  expect(checkout.scripts.violations).toEqual({ blocks: 1, maliciousAllowed: 0 });
  expect(run.json.violations.filter((v: { level: string }) => v.level === 'mandatory')).toEqual([
    expect.objectContaining({ policy: 'csp-blocks-detected-scripts', resource: 'checkout-scripts' }),
  ]);
  expect(run.json.changes).toEqual([
    {
      name: 'checkout-scripts',
      resource: 'CspPolicy',
      kind: 'update',
      changes: ['sources removed: script-src js.stripe.com'],
    },
  ]);
  // Given the state before the change, the pack listed the zone while the program ran.
  expect(run.json.requests.plan).toContain('active scripts, read ahead)');
  expect(run.json.requests.made).toBeLessThanOrEqual(run.json.requests.bound);

  // As SARIF: each result at the line of the program that declares its policy (the position the
  // engine recorded when the stack was deployed), from the repository's root, with its URN.
  const sarifText = fs.readFileSync(sarifFile, 'utf8');
  reviewOutputs.push(sarifText);
  const results = parseSarif(JSON.parse(sarifText)).runs[0]!.results;
  expect(results.filter((result) => result.level === 'error').map((result) => result.ruleId)).toEqual([
    'csp-blocks-detected-scripts',
  ]);
  // The storefront's bypass host, an advisory weakness of a policy the change leaves alone.
  expect(
    results.map((result) => [result.ruleId, result.level, result.locations[0]!.logicalLocations![0]!.name]),
  ).toContainEqual(['csp-weaknesses', 'warning', 'storefront-scripts']);
  const program = fs.readFileSync(path.join(engine.workDir, 'index.ts'), 'utf8').split('\n');
  for (const result of results) {
    const { physicalLocation, logicalLocations } = result.locations[0]!;
    const { name, fullyQualifiedName } = logicalLocations![0]!;
    const line = program.findIndex((text) => text.includes(`new edgeguard.CspPolicy('${name}'`));
    expect([name, physicalLocation]).toEqual([
      name,
      {
        artifactLocation: { uri: `${path.relative(REPO, engine.workDir)}/index.ts` },
        region: { startLine: line + 1, startColumn: program[line]!.indexOf('new ') + 1 },
      },
    ]);
    expect(fullyQualifiedName).toBe(run.json.violations.find((v: { resource: string }) => v.resource === name).urn);
  }
  // Two previews with the pack, the first of the file's (the pack's first start, Node's compile cache
  // still cold on a fresh clone): on cores other work keeps busy, 120 s was not always enough.
}, 240_000);

test('adding a source no detected script uses passes, and the report lists it as unused; the review exits 0', async () => {
  propose(`${ORIGINAL} cdn.unused.example`);
  const preview = await previewWithPack();
  expect(preview.failed).toBe(false);
  expect(preview.text).toContain('Sources that allow no detected script (candidates for removal): cdn.unused.example');

  const run = await review();
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('**No mandatory policy violation.**');
  expect(run.stdout).toContain('Sources that allow no detected script (candidates for removal): `cdn.unused.example`');
  expect(checkoutReview(run).scripts.unusedSources).toEqual(['cdn.unused.example']);
  // The storefront's policy, unchanged, allows cdn.jsdelivr.net, which serves JSONP endpoints and
  // AngularJS (issue 24, item 4): the advisory csp-weaknesses names it, and so does the Markdown.
  expect(preview.text).toContain('[advisory]  csp-weaknesses');
  expect(preview.text).toContain('high script-src cdn.jsdelivr.net: cdn.jsdelivr.net is known to host JSONP');
  const weaknesses = weaknessesSection(run.stdout);
  expect(weaknesses).toContain('#### `storefront-scripts` on `www.example.com`');
  expect(weaknesses).toMatch(
    /\| \*\*high\*\* \| `script-src` \| `cdn\.jsdelivr\.net` \| cdn\.jsdelivr\.net is known to host JSONP/,
  );
}, 120_000);

test("a pack run by hand without the settings in its environment says which to set; it does not read the stack's", async () => {
  // The same change as the test before, which passed with the settings in the pack's environment;
  // the stack's configuration holds them all, the token a secret.
  expect(await engine.stack.getAllConfig()).toMatchObject({
    'edgeguard:baseUrl': { value: emu.baseUrl },
    'edgeguard:apiToken': { secret: true },
  });
  const mark = emu.mark();
  const preview = await previewWithPack({ withoutSettings: true });
  expect(preview.failed).toBe(true);
  expect(preview.text).toContain('[mandatory]  csp-blocks-detected-scripts');
  expect(preview.text).toContain(
    'The EdgeGuard review could not be done: no service address: set edgeguard:baseUrl (or EDGEGUARD_BASE_URL)',
  );
  expect(preview.text.replace(/\s+/g, ' ')).toContain(
    "The policy pack reads the service's settings from its environment alone (EDGEGUARD_BASE_URL and EDGEGUARD_API_TOKEN (or EDGEGUARD_API_EMAIL and EDGEGUARD_API_KEY)), not from the stack's configuration",
  );
  // Nor did it read the service with the stack's settings.
  expect((await emu.requests(mark)).filter((request) => request.path.includes('/page_security/'))).toEqual([]);
}, 120_000);

test('allowing a malicious script fails, naming it; the review exits 1', async () => {
  propose(`${ORIGINAL} analytics-cdn.example.info`);
  const run = await review();
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('[mandatory]  csp-allows-malicious-script');
  expect(run.stderr).toContain(MALICIOUS);
  expect(run.stdout).toContain(MALICIOUS);
  expect(run.stdout).toContain('**malicious** (js\\_integrity\\_score 7)');
  expect(checkoutReview(run).scripts.violations).toEqual({ blocks: 0, maliciousAllowed: 1 });
}, 120_000);

test('the same script, accepted in the pack configuration, no longer fails; the review exits 0', async () => {
  const reason = 'our analytics vendor, scored low while its CDN migrates (ticket SEC-412)';
  packConfig({
    'csp-allows-malicious-script': { acceptedScripts: [{ prefix: 'https://analytics-cdn.example.info/', reason }] },
  });
  // The review gives the pack the project's configuration file, as `--policy-pack-config` does.
  const run = await review();
  expect(run.code).toBe(0);
  expect(run.stderr).not.toContain('[mandatory]');
  expect(run.stdout).toContain(MALICIOUS);
  expect(run.stdout).toContain(`accepted: ${reason}`);
  expect(checkoutReview(run).scripts.violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
}, 120_000);

test('a connect-src without the payment API fails the preview, naming the connection; the review exits 1', async () => {
  propose(`${ORIGINAL}; connect-src 'self' m.stripe.network`);
  packConfig(undefined);
  const run = await review();
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('[mandatory]  csp-blocks-detected-connections');
  expect(run.stderr).toContain(PAYMENT_API);
  expect(run.stderr).not.toContain('[mandatory]  csp-blocks-detected-scripts');
  expect(run.stdout).toContain('##### Connections (`connect-src`)');
  expect(run.stdout).toContain(PAYMENT_API);
  const checkout = checkoutReview(run);
  // The live policy restricts no connection: the payment API is newly blocked, and so is the
  // skimmer's drop, which is what blocking is for (malicious, no violation).
  expect(
    checkout.connections.newlyBlocked.lines.map((line: { url: string; malicious: boolean }) => [
      line.url,
      line.malicious,
    ]),
  ).toEqual([
    [PAYMENT_API, false],
    [SKIMMER, true],
  ]);
  expect(checkout.connections.violations).toEqual({ blocks: 1, maliciousAllowed: 0 });
  expect(run.json.violations.filter((v: { level: string }) => v.level === 'mandatory')).toEqual([
    expect.objectContaining({ policy: 'csp-blocks-detected-connections', resource: 'checkout-scripts' }),
  ]);
}, 120_000);

test('the payment API, accepted in the pack configuration, no longer fails; the review exits 0', async () => {
  const reason = 'moves behind our payments proxy this sprint (PAY-240)';
  packConfig({ 'csp-blocks-detected-connections': { acceptedConnections: [{ url: PAYMENT_API, reason }] } });
  const run = await review();
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`accepted: ${reason}`);
  expect(checkoutReview(run).connections.violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
}, 120_000);

test('allowing the malicious collector fails, naming it; the review exits 1', async () => {
  propose(`${ORIGINAL}; ${CONNECT} skimmer-drop.example.info`);
  packConfig(undefined);
  const run = await review();
  expect(run.code).toBe(1);
  expect(run.stdout).toContain(SKIMMER);
  expect(run.stdout).toContain('**malicious** (domain reported malicious (Malware, Phishing))');
  expect(checkoutReview(run).connections.violations).toEqual({ blocks: 0, maliciousAllowed: 1 });
  expect(run.json.violations.filter((v: { level: string }) => v.level === 'mandatory')).toEqual([
    expect.objectContaining({ policy: 'csp-allows-malicious-connection', resource: 'checkout-scripts' }),
  ]);
}, 120_000);

test('the policy edgeguard-csp writes for the checkout passes the pack and blocks nothing that is not malicious', async () => {
  const out = path.join(engine.workDir, 'checkout-csp.ts');
  const run = await runToEnd(
    process.execPath,
    [
      path.join(REPO, 'dist', 'provider', 'cli', 'csp.js'),
      '--zone',
      DEMO.zoneId,
      '--host',
      'checkout.example.com',
      '--action',
      'allow',
      '--out',
      out,
    ],
    { env: { ...process.env, EDGEGUARD_BASE_URL: emu.baseUrl, EDGEGUARD_API_TOKEN: TOKEN } },
  );
  expect(run.status).toBe(0);
  const program = fs.readFileSync(out, 'utf8');
  fs.rmSync(out);
  expect(program).toContain(`// - connection ${SKIMMER}: malicious`);
  const value = /value:\s*"([^"]+)"/.exec(program)![1]!;
  expect(value).toMatch(/^script-src .*; connect-src .*api\.stripe\.com/);
  propose(value);
  const reviewed = await review();
  expect(reviewed.code).toBe(0);
  const checkout = checkoutReview(reviewed);
  for (const kind of ['scripts', 'connections']) {
    expect(checkout[kind].violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
    // What it blocks is malicious, and only that.
    expect(checkout[kind].notAllowed.lines.every((line: { malicious: boolean }) => line.malicious)).toBe(true);
    expect(checkout[kind].notAllowed.count).toBe(checkout[kind].notAllowedMalicious);
  }
  expect(checkout.connections.notAllowed.lines.map((line: { url: string }) => line.url)).toEqual([SKIMMER]);
  expect(checkout.scripts.notAllowed.lines.map((line: { url: string }) => line.url)).toEqual([MALICIOUS]);
  // And it has no weakness: no object-src missing, no bypass host.
  expect(value).toMatch(/; object-src 'none'; base-uri 'self'$/);
  expect(weaknessesSection(reviewed.stdout)).not.toContain('`checkout-scripts`');
}, 120_000);

test('credentials the service refuses fail the review with that reason; the review exits 2', async () => {
  propose(ORIGINAL);
  packConfig(undefined);
  await engine.stack.setConfig('edgeguard:apiToken', { value: REFUSED, secret: true });
  try {
    const run = await review();
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('The EdgeGuard review could not be done: list CSP policies');
    expect(run.stderr).toContain('HTTP 401');
    expect(run.stderr).toMatch(/edgeguard-review: the review could not be done: list CSP policies .* HTTP 401/);
    expect(run.stdout).toContain('**The EdgeGuard review could not be done**');
    expect(run.stdout).not.toContain(REFUSED);
    expect(run.stderr).not.toContain(REFUSED);
  } finally {
    await engine.stack.setConfig('edgeguard:apiToken', { value: TOKEN, secret: true });
  }
}, 120_000);

test('the reviews wrote nothing: the only writes are the two creates of the first up', async () => {
  const policies = `zones/${DEMO.zoneId}/page_security/policies`;
  expect((await emu.writesSince(0)).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
    `POST /client/v4/${policies} 200`,
    `POST /client/v4/${policies} 200`,
  ]);
  const live = (await emu.api('GET', policies)).body.result;
  expect(live.map((p: { value: string }) => p.value)).toContain(ORIGINAL);
});

test("two allow policies on the checkout block what either refuses, in the pack's output and in edgeguard-review's Markdown", async () => {
  propose(ORIGINAL);
  packConfig(undefined);
  const RECAPTCHA = 'https://www.google.com/recaptcha/api.js';
  // The pull request adds a stricter allow policy on the checkout, without reCAPTCHA.
  const program = path.join(engine.workDir, 'index.ts');
  const before = fs.readFileSync(program, 'utf8');
  fs.writeFileSync(
    program,
    `${before}
new edgeguard.CspPolicy('checkout-strict', {
  zoneId,
  description: 'Checkout: the payment scripts only',
  action: 'allow',
  expression: 'http.host eq "checkout.example.com"',
  value: "script-src 'self' js.stripe.com",
});
`,
  );
  // Another team's allow policy on the checkout, at the service, not in the stack: without Stripe.
  const policies = `zones/${DEMO.zoneId}/page_security/policies`;
  const theirs = (
    await emu.api('POST', policies, {
      body: {
        description: "payments team's",
        action: 'allow',
        expression: 'http.host eq "checkout.example.com"',
        enabled: 'true',
        value: `script-src 'self' ${RECAPTCHA}`,
      },
    })
  ).body.result.id as string;
  try {
    // The pack alone: the stack's two policies judged together; the live ones left out, saying why.
    const preview = await previewWithPack();
    expect(preview.failed).toBe(true);
    expect(preview.text).toContain('[mandatory]  csp-blocks-detected-scripts');
    expect(preview.text).toContain(
      'CspPolicy "checkout-strict" (allow on checkout.example.com) would block 1 detected script that is neither malicious nor accepted:',
    );
    expect(preview.text).toMatch(new RegExp(`${RECAPTCHA.replace(/[./]/g, '\\$&')} [^\\n]*blocked by this policy\\)`));
    expect(preview.text).toContain(
      'Live policies of the host are left out of the judgement: which live policies the stack manages is not known',
    );

    // edgeguard-review gives the pack the state: the other team's policy is judged too.
    const run = await review();
    expect(run.code).toBe(1);
    expect(run.json.violations.filter((v: { level: string }) => v.level === 'mandatory')).toEqual([
      expect.objectContaining({ policy: 'csp-blocks-detected-scripts', resource: 'checkout-strict' }),
    ]);
    const strict = run.json.policies.find((policy: { name: string }) => policy.name === 'checkout-strict');
    // The stack's policies come in the order the engine gives them, which varies.
    const sorted = (items: unknown[]) => items.map((item) => JSON.stringify(item)).sort();
    expect(sorted(strict.hostHeaders)).toEqual(
      sorted([
        { policy: { stack: 'checkout-scripts' }, effect: 'block' },
        { policy: { stack: 'checkout-strict' }, effect: 'block' },
        { policy: { live: theirs }, effect: 'block' },
      ]),
    );
    const blockers = (lines: Array<{ url: string; blockedBy?: unknown }>) => lines.map((l) => [l.url, l.blockedBy]);
    const [recaptcha, malicious] = strict.scripts.notAllowed.lines;
    expect(blockers([recaptcha])).toEqual([[RECAPTCHA, [{ stack: 'checkout-strict' }]]]);
    expect(malicious.url).toBe(MALICIOUS);
    expect(sorted(malicious.blockedBy)).toEqual(
      sorted([{ stack: 'checkout-scripts' }, { stack: 'checkout-strict' }, { live: theirs }]),
    );
    expect(blockers(strict.scripts.blockedByOthers.lines)).toEqual([[STRIPE_ELEMENTS, [{ live: theirs }]]]);
    // Unchanged, the checkout's own policy now sees reCAPTCHA blocked by the new one; Stripe was
    // blocked by the other team's before the change already.
    const checkout = checkoutReview(run);
    expect(checkout.scripts.violations).toEqual({ blocks: 0, maliciousAllowed: 0 });
    expect(blockers(checkout.scripts.newlyBlocked.lines)).toEqual([[RECAPTCHA, [{ stack: 'checkout-strict' }]]]);
    expect(run.stdout).toContain(
      `#### \`checkout-strict\`: allow on \`checkout.example.com\` (blocks what it does not allow)`,
    );
    const judgedWith =
      /Judged with every CSP header of checkout\.example\.com after the change, in Chromium and Firefox: ([^;\n]*); a fetch loads only if every enforced one allows it\./.exec(
        run.stdout,
      );
    expect(judgedWith?.[1]?.split(', ').sort()).toEqual(
      ['"checkout-scripts" (enforced)', 'this policy (enforced)', `the live policy ${theirs} (enforced)`].sort(),
    );
    expect(run.stdout).toMatch(
      new RegExp(`- \`${RECAPTCHA.replace(/[./]/g, '\\$&')}\` [^\\n]*; blocked by this policy\\n`),
    );
    expect(run.stdout).toContain('**Other policies of the host block 1 script this one does not**');
    expect(run.stdout).toMatch(
      new RegExp(`- \`${STRIPE_ELEMENTS.replace(/[./]/g, '\\$&')}\` [^\\n]*; blocked by the live policy ${theirs}\\n`),
    );
  } finally {
    fs.writeFileSync(program, before);
    expect((await emu.api('DELETE', `${policies}/${theirs}`)).status).toBe(200);
  }
}, 240_000);

test('a policy changed outside the stack makes --refresh --fail-on-drift exit 3, the report naming the property', async () => {
  propose(ORIGINAL);
  packConfig(undefined);
  const policies = `zones/${DEMO.zoneId}/page_security/policies`;
  const live = (await emu.api('GET', policies)).body.result.find((p: { value: string }) => p.value === ORIGINAL);
  const put = (value: string) =>
    emu.api('PUT', `${policies}/${live.id}`, {
      body: {
        description: live.description,
        action: live.action,
        expression: live.expression,
        enabled: live.enabled,
        value,
      },
    });
  expect((await put(`${ORIGINAL} cdn.hotfix.example`)).status).toBe(200);
  try {
    const run = await review('--refresh', '--fail-on-drift');
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('no mandatory policy violation; drift: checkout-scripts');
    expect(run.stdout).toContain('### Drift found by `--refresh`');
    expect(run.stdout).toContain('sources removed: script-src cdn.hotfix.example');
    expect(run.json.drift).toEqual([
      expect.objectContaining({ name: 'checkout-scripts', changes: ['sources added: script-src cdn.hotfix.example'] }),
    ]);
    // Without --fail-on-drift the same review passes: drift alone is no violation.
    expect((await review('--refresh')).code).toBe(0);
  } finally {
    expect((await put(ORIGINAL)).status).toBe(200);
  }
}, 180_000);

/** The live values of the zone's CSP policies. */
async function liveValues(): Promise<string[]> {
  const reply = await emu.api('GET', `zones/${DEMO.zoneId}/page_security/policies`);
  return reply.body.result.map((policy: { value: string }) => policy.value).sort();
}

test('pulumi up with the pack stops in its preview: the violation is reported and the policy is unchanged', async () => {
  propose("script-src 'self' https://www.google.com/recaptcha/api.js");
  packConfig(undefined);
  const before = await liveValues();
  expect(before).toContain(ORIGINAL);
  const run = await runToEnd(
    path.join(PULUMI_BIN, 'pulumi'),
    ['up', '--yes', '--non-interactive', '--stack', engine.stack.name, '--policy-pack', POLICY_PACK],
    { cwd: engine.workDir, env: engine.stack.workspace.envVars },
  );
  expect(run.status).not.toBe(0);
  expect(run.stdout).toContain('preview failed');
  expect(run.stdout).toContain('[mandatory]  csp-blocks-detected-scripts');
  expect(await liveValues()).toEqual(before);
}, 120_000);

test('pulumi up --skip-preview with the pack makes the change, then reports the violation', async () => {
  const failed = await engine.stack.up({ policyPacks: [POLICY_PACK] }).then(
    () => undefined,
    (error: Error) => error.message,
  );
  expect(failed).toContain('--skip-preview');
  expect(failed).toContain('[mandatory]  csp-blocks-detected-scripts');
  const live = await liveValues();
  expect(live).toContain("script-src 'self' https://www.google.com/recaptcha/api.js");
  expect(live).not.toContain(ORIGINAL);
}, 120_000);

test('the reviews left nothing in the temporary folder (the engine ends the pack with a kill)', () => {
  const left = fs.readdirSync(tmp).filter((name) => name.startsWith('edgeguard-review-'));
  expect(left).toEqual([]);
});

test('the token the review gives the pack is in no output, file or state of the reviews', () => {
  expect(reviewOutputs.length).toBeGreaterThan(20);
  const texts: Array<[string, string]> = reviewOutputs.map((text, index) => [`review output ${index}`, text]);
  texts.push(['the previews run by hand', engine.output.join('')], ['the state', engine.stateText()]);
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return entry.isDirectory() ? (entry.name === 'node_modules' ? [] : files(file)) : [file];
    });
  for (const file of [...files(engine.workDir), ...files(tmp)]) texts.push([file, fs.readFileSync(file, 'latin1')]);
  const encoded = [TOKEN, Buffer.from(TOKEN).toString('base64'), encodeURIComponent(TOKEN)];
  expect(texts.filter(([, text]) => encoded.some((form) => text.includes(form))).map(([where]) => where)).toEqual([]);
});
