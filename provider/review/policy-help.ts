/**
 * What each policy of the pack reports, written once: the review guide's table of policies
 * (docs/guides/reviewing.md, a section `npm run docs` generates) and the `help` of each rule of the
 * review's SARIF (`../format/sarif.ts`) are made from these words. Markdown, with links relative
 * to docs/guides/.
 *
 * `tags` and `securitySeverity` are what code scanning reads of a rule: a rule that is a security
 * finding carries the tag `security` and a CVSS-like score (9.0 and above critical, 7.0 high, 4.0
 * medium), by which it ranks alerts; the others (a page that would break, a summary, alerts left
 * without a receiver) carry no score.
 */

/** A policy's words and what code scanning reads of it. */
export interface PolicyHelp {
  /** What it reports, in Markdown: the guide's table cell. */
  reports: string;
  tags: readonly string[];
  /** The score of a security finding, from 0.0 to 10.0 as text (GitHub's `security-severity`). */
  securitySeverity?: string;
}

export const POLICY_HELP: Readonly<Record<string, PolicyHelp>> = {
  'csp-blocks-detected-scripts': {
    reports:
      'an `allow` policy of the stack, changed or not, that would block a script detected on its host. A malicious script is what blocking is for: it is listed as blocked, and no violation. A live policy that blocks a script still being seen keeps failing until the script is allowed or accepted',
    tags: ['csp', 'availability'],
  },
  'csp-blocks-detected-connections': {
    reports:
      'the same for a connection detected on its host: a `connect-src` that drops the payment API breaks checkout',
    tags: ['csp', 'availability'],
  },
  'csp-allows-malicious-script': {
    reports: 'a policy that allows a detected script classified malicious',
    tags: ['security', 'csp', 'malicious-script'],
    securitySeverity: '9.0',
  },
  'csp-allows-malicious-connection': {
    reports: 'a policy that allows a detected connection reported malicious: data can leave the page there',
    tags: ['security', 'csp', 'data-exfiltration'],
    securitySeverity: '9.0',
  },
  'csp-change-impact': {
    reports:
      'the summary above, for every CSP policy the change creates or changes, and, in the scope `change`, for every policy whose host it did not read, saying so',
    tags: ['csp', 'summary'],
  },
  'csp-weaknesses': {
    reports:
      'every CSP policy of the stack, changed or not, with weaknesses of high or medium severity (see [Weaknesses](reviewing.md#weaknesses)): one violation per policy, listing them',
    tags: ['security', 'csp', 'xss'],
    securitySeverity: '5.0',
  },
  'pools-left-without-alerts': {
    reports:
      'a `PoolNotificationMigration` whose account has pools that no enabled `HealthNotification` of the stack covers',
    tags: ['reliability', 'alerts'],
  },
  'payment-script-unauthorized': {
    reports:
      'a script page security detected on the payment pages of a `ScriptInventory` that no entry authorizes (PCI DSS 6.4.3): add an entry with its justification (and its `hash`), or remove the script from the page. See [payment pages](payment-pages.md)',
    tags: ['security', 'pci-dss', 'payment-page'],
    securitySeverity: '7.5',
  },
  'payment-script-changed': {
    reports:
      'a script pinned by `hash` whose live hash is another (6.4.3, 11.6.1), judged against the entries as the change leaves them, so a change that re-pins it passes: review the new content, then re-pin or restore it',
    tags: ['security', 'pci-dss', 'payment-page'],
    securitySeverity: '7.5',
  },
  'payment-script-malicious': {
    reports:
      'an entry authorizes a script that is malicious (`js_integrity_score` below 10) or that the service reports malicious: remove the entry and the script. No acceptance: only the enforcement level changes it',
    tags: ['security', 'pci-dss', 'payment-page', 'malicious-script'],
    securitySeverity: '9.5',
  },
  'payment-csp-differs-from-inventory': {
    reports:
      "for each host of an inventory's pages, each enabled `allow` CSP policy of the stack that allows less than the inventory's `cspSources` (the sources it lacks) or more (the extra sources or keywords), and each host no such policy covers",
    tags: ['security', 'csp', 'pci-dss', 'payment-page'],
    securitySeverity: '4.0',
  },
  'payment-headers-changed': {
    reports:
      "a CSP header of an inventory's pages' hosts not as the stack manages it: a live policy there that no `CspPolicy` of the stack manages, a managed one whose action, expression, value or enabled flag differs from what the stack's state declares (disabled, switched to report-only, edited in the dashboard), or one deleted; each named with the header before and after. Bring it under the stack (`edgeguard-import`) or restore it (`pulumi up`). Compared with the state before the change, which `edgeguard-review` gives the pack; without it, the report says they are not compared",
    tags: ['security', 'csp', 'pci-dss', 'payment-page'],
    securitySeverity: '7.5',
  },
};

/** A policy's words, or an error naming it: every policy of the pack has some. */
export function policyHelp(policy: string): PolicyHelp {
  const help = POLICY_HELP[policy];
  if (help === undefined) throw new Error(`policy ${policy} has no words in provider/review/policy-help.ts`);
  return help;
}
