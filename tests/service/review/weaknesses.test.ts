import type { PolicyResource } from '@pulumi/policy';
import { PACK_POLICIES, POLICY_NAMES } from '../../../provider/pack/policies';
import { renderMarkdown } from '../../../provider/format/review-markdown';
import { startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { cspPolicyResource, packEnvironment, stackArgs, type PackEnvironment } from '../../helpers/pack';
import { reviewReport } from '../../helpers/review-report';

/**
 * The weaknesses in the policy pack and in edgeguard-review's Markdown (issue 24, item 4), against
 * the emulator: the advisory `csp-weaknesses` reports each CSP policy with weaknesses once, listing
 * them, and the review's Markdown has a table per such policy. The policies' values are judged
 * with the allow policies of their host.
 */

const STOREFRONT = "script-src 'self' www.googletagmanager.com cdn.jsdelivr.net static.hotjar.com";
const CLEAN = "script-src 'self' js.stripe.com; object-src 'none'; base-uri 'self'";

let emu: TestEmulator;
let pack: PackEnvironment;

beforeAll(async () => {
  emu = await startTestEmulator();
  pack = packEnvironment(emu, 'edgeguard-weaknesses-');
});
afterAll(async () => {
  pack?.restore();
  await emu?.close();
});

/** A CspPolicy of the fixture's zone as @pulumi/policy hands it to a stack policy. */
function csp(name: string, host: string, value: string, action = 'allow'): PolicyResource {
  return cspPolicyResource(name, { zoneId: ZONE_ID, host, value, action });
}

/** What `csp-weaknesses` reports on `resources`, by resource name. */
async function weaknessViolations(resources: PolicyResource[]): Promise<Map<string, string>> {
  const policy = PACK_POLICIES.find((candidate) => candidate.name === POLICY_NAMES.weaknesses)!;
  expect(policy.enforcementLevel).toBe('advisory');
  const reported = new Map<string, string>();
  const args = stackArgs(resources);
  await policy.validateStack(args, (message, urn) => {
    reported.set(urn?.split('::').pop() ?? '(stack)', message);
  });
  return reported;
}

test('csp-weaknesses: one violation per policy with weaknesses, listing them; none for a clean policy', async () => {
  const reported = await weaknessViolations([
    csp('storefront-scripts', 'www.example.com', STOREFRONT),
    csp('checkout-scripts', 'checkout.example.com', CLEAN),
    // Connections alone: not told about scripts.
    csp('api-connections', 'api.example.com', "connect-src 'self' api.stripe.com"),
  ]);
  expect([...reported.keys()]).toEqual(['storefront-scripts']);
  const lines = reported.get('storefront-scripts')!.split('\n');
  expect(lines[0]).toBe('CspPolicy "storefront-scripts" (allow on www.example.com) has 2 weaknesses:');
  expect(lines.slice(1)).toEqual([
    expect.stringMatching(/^ {2}- high object-src: Missing object-src allows the injection of plugins/),
    expect.stringMatching(
      /^ {2}- high script-src cdn\.jsdelivr\.net: cdn\.jsdelivr\.net is known to host JSONP endpoints and Angular libraries .* by their full URLs/,
    ),
  ]);
});

test('an allow policy of the same host that sets object-src takes that weakness away; a log one does not', async () => {
  const objects = (action: string) => csp('storefront-objects', 'www.example.com', "object-src 'none'", action);
  const withAllow = await weaknessViolations([
    csp('storefront-scripts', 'www.example.com', STOREFRONT),
    objects('allow'),
  ]);
  expect(withAllow.get('storefront-scripts')).toContain('has 1 weakness:');
  expect(withAllow.get('storefront-scripts')).not.toContain('object-src');
  const withLog = await weaknessViolations([csp('storefront-scripts', 'www.example.com', STOREFRONT), objects('log')]);
  expect(withLog.get('storefront-scripts')).toContain('has 2 weaknesses:');
});

test("edgeguard-review's Markdown: a Weaknesses section with a table for each policy that has some", async () => {
  await weaknessViolations([
    csp('storefront-scripts', 'www.example.com', STOREFRONT),
    csp('checkout-scripts', 'checkout.example.com', CLEAN),
  ]);
  const output = pack.output();
  const markdown = renderMarkdown(reviewReport({ policies: output.review!.policies }));
  const section = markdown.split('\n### Weaknesses\n')[1]!.split('\n### ')[0]!;
  expect(section).toContain('#### `storefront-scripts` on `www.example.com`');
  expect(section).toContain('| Severity | Directive | Source | What is wrong, and what to do |');
  expect(section).toMatch(
    /\| \*\*high\*\* \| `script-src` \| `cdn\.jsdelivr\.net` \| cdn\.jsdelivr\.net is known to host JSONP endpoints/,
  );
  expect(section).toMatch(/\| \*\*high\*\* \| `object-src` \| missing \| Missing object-src/);
  expect(section).not.toContain('checkout-scripts');

  const clean = renderMarkdown(
    reviewReport({ policies: output.review!.policies.filter((policy) => policy.name === 'checkout-scripts') }),
  );
  expect(clean).toContain('### Weaknesses\n\nNo CSP policy of the stack has a weakness of high or medium severity.');
});
