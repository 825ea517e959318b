import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PACK_POLICIES } from '../../../provider/pack/policies';
import { POLICY_HELP } from '../../../provider/review/policy-help';
import type { ReportedViolation, ReviewReport } from '../../../provider/review/report';
import { jsonText } from '../../../provider/format/escape';
import { fingerprintOf, reviewSarif } from '../../../provider/format/sarif';
import { REPO } from '../../helpers/repo';
import { parseSarif } from '../../helpers/sarif';
import { multitoolFindings } from '../../helpers/sarif-multitool';
import { reviewReport } from '../../helpers/review-report';

/**
 * The review's violations as SARIF 2.1.0 (issue 24, item 6): a rule per policy of the pack, a
 * result per violation at the program line that declares its resource, else at the main file.
 * Every log is read through the subset's schema (tests/helpers/sarif.ts) before it is looked at.
 */

const CHECKOUT_URN = 'urn:pulumi:prod::shop::pulumi-nodejs:dynamic/edgeguard:CspPolicy::checkout-scripts';
const STOREFRONT_URN = 'urn:pulumi:prod::shop::edgeguard:index:CspPolicy::storefront-scripts';

function report(violations: ReportedViolation[], extra: Partial<ReviewReport> = {}): ReviewReport {
  return reviewReport({
    stack: 'prod',
    exitCode: violations.some((violation) => violation.level === 'mandatory') ? 1 : 0,
    violations,
    ...extra,
  });
}

const blocks: ReportedViolation = {
  policy: 'csp-blocks-detected-scripts',
  level: 'mandatory',
  resource: 'checkout-scripts',
  urn: CHECKOUT_URN,
  message: 'CSP policy "checkout-scripts" would block 1 detected script:\n- https://js.stripe.com/v3/',
  declaredAt: { file: 'sites/checkout.ts', line: 13, column: 18 },
};

const weakness: ReportedViolation = {
  policy: 'csp-weaknesses',
  level: 'advisory',
  resource: 'storefront-scripts',
  urn: STOREFRONT_URN,
  message:
    'script-src allows cdn.jsdelivr.net, which serves JSONP endpoints and AngularJS: it lets injected markup run code past the policy.',
};

function sarifOf(r: ReviewReport, projectPath = '') {
  return parseSarif(JSON.parse(JSON.stringify(reviewSarif(r, projectPath))));
}

test("a rule per policy of the pack, in its order: the policy's name, title, description and level, and the review guide's table of policies", () => {
  const run = sarifOf(report([])).runs[0]!;
  const rules = run.tool.driver.rules;
  expect(rules.map((rule) => rule.id)).toEqual(PACK_POLICIES.map((policy) => policy.name));
  expect(PACK_POLICIES[0]!.description).toMatch(/^An allow CSP policy must not block a script/);
  const helpUri = 'https://github.com/edgeguard/pulumi-edgeguard/blob/v0.1.0/docs/guides/reviewing.md#the-policy-pack';
  expect(rules.find((rule) => rule.id === 'csp-blocks-detected-scripts')).toEqual({
    id: 'csp-blocks-detected-scripts',
    shortDescription: { text: 'CSP blocks detected scripts' },
    fullDescription: { text: PACK_POLICIES[0]!.description },
    defaultConfiguration: { level: 'error' },
    helpUri,
    help: {
      text: `Reports ${POLICY_HELP['csp-blocks-detected-scripts']!.reports.replace(/`/g, '')}.\n\n${PACK_POLICIES[0]!.description}\n\nThe policies of the pack: ${helpUri}`,
      markdown: `Reports ${POLICY_HELP['csp-blocks-detected-scripts']!.reports}.\n\n${PACK_POLICIES[0]!.description}\n\n[The policies of the pack](${helpUri})`,
    },
    properties: { tags: ['csp', 'availability'] },
  });
  // A security finding is tagged and scored; a link of the guide's words is made absolute.
  expect(rules.find((rule) => rule.id === 'csp-weaknesses')!.properties).toEqual({
    tags: ['security', 'csp', 'xss'],
    'security-severity': '5.0',
  });
  expect(rules.find((rule) => rule.id === 'csp-weaknesses')!.help.markdown).toContain(
    '(see [Weaknesses](https://github.com/edgeguard/pulumi-edgeguard/blob/v0.1.0/docs/guides/reviewing.md#weaknesses))',
  );
  expect(rules.find((rule) => rule.id === 'csp-weaknesses')!.help.text).toContain('(see Weaknesses)');
  for (const policy of PACK_POLICIES) {
    const rule = rules.find((r) => r.id === policy.name)!;
    expect([policy.name, rule.defaultConfiguration.level]).toEqual([
      policy.name,
      policy.enforcementLevel === 'mandatory' ? 'error' : 'warning',
    ]);
  }
  // The help is true to its word: the section exists and its table names every policy.
  const guide = fs.readFileSync(path.join(REPO, 'docs', 'guides', 'reviewing.md'), 'utf8');
  const section = guide.split('\n## The policy pack\n')[1]?.split('\n## ')[0] ?? '';
  for (const policy of PACK_POLICIES) expect(section).toContain(`| \`${policy.name}\` |`);
});

test('a violation of a deployed resource is at the line that declares it, with its URN and name, from the repository root', () => {
  const run = sarifOf(report([blocks]), 'infra/shop').runs[0]!;
  expect(run.results).toEqual([
    {
      ruleId: 'csp-blocks-detected-scripts',
      level: 'error',
      message: { text: blocks.message },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: 'infra/shop/sites/checkout.ts' },
            region: { startLine: 13, startColumn: 18 },
          },
          logicalLocations: [{ name: 'checkout-scripts', fullyQualifiedName: CHECKOUT_URN, kind: 'resource' }],
        },
      ],
      partialFingerprints: {
        'edgeguardFinding/v1': fingerprintOf(
          { policy: 'csp-blocks-detected-scripts', urn: CHECKOUT_URN },
          { project: 'shop', stack: 'prod' },
        ),
      },
    },
  ]);
  expect(run.automationDetails.id).toBe('edgeguard-review/shop/prod/');
  expect(run.invocations).toEqual([{ executionSuccessful: true }]);
});

test("a weakness of a resource not deployed yet is a warning at the main file's first line", () => {
  const run = sarifOf(report([weakness], { mainFile: 'src/main program.ts' })).runs[0]!;
  expect(run.tool.driver.rules.find((rule) => rule.id === 'csp-weaknesses')?.defaultConfiguration).toEqual({
    level: 'warning',
  });
  const [result] = run.results;
  expect(result!.level).toBe('warning');
  expect(result!.locations[0]!.physicalLocation).toEqual({
    artifactLocation: { uri: 'src/main%20program.ts' },
    region: { startLine: 1 },
  });
  expect(result!.locations[0]!.logicalLocations).toEqual([
    { name: 'storefront-scripts', fullyQualifiedName: STOREFRONT_URN, kind: 'resource' },
  ]);
});

test('the levels are the ones the preview reported: a mandatory policy set to advisory is a warning', () => {
  const run = sarifOf(report([{ ...blocks, level: 'advisory' }])).runs[0]!;
  expect(run.results[0]!.level).toBe('warning');
  expect(run.tool.driver.rules[0]!.defaultConfiguration.level).toBe('error');
});

test("a violation about the stack is at the main file, without a resource, told apart from another by the stack's name", () => {
  const failed: ReportedViolation = {
    policy: 'csp-blocks-detected-scripts',
    level: 'mandatory',
    message: 'The EdgeGuard review could not be done: the service refused the credentials',
  };
  const run = sarifOf(report([failed, blocks])).runs[0]!;
  expect(run.results[0]!.locations).toEqual([
    { physicalLocation: { artifactLocation: { uri: 'index.ts' }, region: { startLine: 1 } } },
  ]);
  const [aboutStack, aboutPolicy] = run.results.map((result) => result.partialFingerprints['edgeguardFinding/v1']);
  expect(aboutStack).toBe(fingerprintOf({ policy: failed.policy }, { project: 'shop', stack: 'prod' }));
  expect(aboutStack).not.toBe(aboutPolicy);
  // The same violation about another stack of the project is another finding.
  expect(fingerprintOf({ policy: failed.policy }, { project: 'shop', stack: 'staging' })).not.toBe(aboutStack);
});

test('a review that could not be done says so in the invocation, so no result is not read as a pass', () => {
  const run = sarifOf(report([], { exitCode: 2, reason: 'the preview failed: no such zone' })).runs[0]!;
  expect(run.results).toEqual([]);
  expect(run.invocations).toEqual([
    {
      executionSuccessful: false,
      toolExecutionNotifications: [{ level: 'error', message: { text: 'the preview failed: no such zone' } }],
    },
  ]);
});

test('the schema refuses what code scanning cannot place', () => {
  const log = JSON.parse(JSON.stringify(reviewSarif(report([blocks]), '')));
  log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = '../index.ts';
  expect(() => parseSarif(log)).toThrow(/must be a path from the repository root\n.*artifactLocation\.uri/);
  log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = 'index.ts';
  log.runs[0].results[0].ruleId = 'no-such-policy';
  expect(() => parseSarif(log)).toThrow(/every result's ruleId is a rule of the driver/);
});

test('a finding keeps its fingerprint from run to run, whatever its line and message; two findings never share one', () => {
  const moved: ReportedViolation = {
    ...blocks,
    message:
      'CSP policy "checkout-scripts" would block 2 detected scripts:\n- https://js.stripe.com/v3/\n- https://m.stripe.network/inner.html',
    declaredAt: { file: 'sites/checkout.ts', line: 40, column: 3 },
  };
  const fingerprints = (violations: ReportedViolation[]) =>
    sarifOf(report(violations)).runs[0]!.results.map((result) => result.partialFingerprints['edgeguardFinding/v1']);
  const [first] = fingerprints([blocks]);
  expect(fingerprints([moved])).toEqual([first]);
  // The same rule on another resource, and another rule on the same resource: three findings, three alerts.
  const otherRule: ReportedViolation = { ...blocks, policy: 'csp-weaknesses', level: 'advisory' };
  const all = fingerprints([blocks, weakness, otherRule]);
  expect(new Set(all).size).toBe(3);
  expect(all[0]).toBe(first);
});

test('a message is shown as written, and no URL in it makes an embedded link or carries a control character', () => {
  // SARIF reads `\\`, `\\[` and `\\]` as the characters themselves, so the escape of ESC shows as `\\x1b`.
  const hostile: ReportedViolation = {
    ...blocks,
    message: 'blocks:\n- https://x.example/[link](https://evil)\u001b[31m\\',
  };
  const text = sarifOf(report([hostile])).runs[0]!.results[0]!.message.text;
  expect(text).toBe('blocks:\n- https://x.example/\\[link\\](https://evil)\\\\x1b\\[31m\\\\');
});

test("two stacks of one project are two categories: each upload replaces its own stack's alerts", () => {
  const category = (stack: string) => sarifOf(report([], { stack })).runs[0]!.automationDetails.id;
  expect(category('prod')).toBe('edgeguard-review/shop/prod/');
  expect(category('staging')).toBe('edgeguard-review/shop/staging/');
});

test("the SARIF Multitool finds no error or warning, with the SARIF rules and GitHub code scanning's, in a review with a violation of every rule", () => {
  const violations: ReportedViolation[] = PACK_POLICIES.map((policy, i) => ({
    policy: policy.name,
    level: policy.enforcementLevel === 'mandatory' ? 'mandatory' : 'advisory',
    resource: `resource-${i}`,
    urn: `urn:pulumi:prod::shop::edgeguard:index:CspPolicy::resource-${i}`,
    message: `${policy.name} on resource-${i}:\n  - https://cdn.example/[x](https://evil.example)\u001b[31m`,
    ...(i % 2 === 0 ? { declaredAt: { file: 'index.ts', line: i + 1, column: 1 } } : {}),
  }));
  // And one about the stack, at the main file.
  violations.push({ policy: 'csp-blocks-detected-scripts', level: 'mandatory', message: 'could not be done' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeguard-sarif-'));
  try {
    const file = path.join(dir, 'review.sarif');
    fs.writeFileSync(file, jsonText(reviewSarif(report(violations), 'infra')));
    expect(multitoolFindings(file, dir)).toEqual([]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
