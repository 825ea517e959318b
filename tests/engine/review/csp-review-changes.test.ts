import * as fs from 'node:fs';
import * as path from 'node:path';
import { POLICY_PACK } from '../../../provider/review/review-stack';
import { runToEnd } from '../../helpers/process';
import { DEMO } from '../../../emulator/seed/demo';
import {
  checkoutReview,
  deployReviewStack,
  emu,
  engine,
  MALICIOUS,
  ORIGINAL,
  packConfig,
  previewWithPack,
  propose,
  PULUMI_BIN,
  review,
  STRIPE_ELEMENTS,
} from './csp-review-stack';

/**
 * The review through the real engine on changes beyond one policy's value (issue 9), on the
 * examples/csp-review stack deployed for this file (./csp-review-stack.ts): a second allow policy on
 * the checkout beside another team's live one, a policy changed outside the stack
 * (`--refresh --fail-on-drift`), and the pack in `pulumi up`: its CSP checks are stack policies,
 * so a mandatory violation stops `pulumi up` in the preview it makes first, before any change, but
 * `pulumi up --skip-preview` (which the Automation API's `up` always passes) makes the change and
 * reports the violation after.
 */

deployReviewStack();

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
