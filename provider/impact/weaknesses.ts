import { CspEvaluator } from 'csp_evaluator/dist/evaluator';
import { Finding, Severity, Type } from 'csp_evaluator/dist/finding';
import { CspParser } from 'csp_evaluator/dist/parser';
import { formatCspSource, parseCspValue, type CspDirective, type CspDirectiveName } from '../../rules/csp';

/**
 * The weaknesses of a CSP policy (issue 24, item 4): what it lets in that an attacker who can
 * inject markup into a page can use to run code past it, as Google's CSP Evaluator (npm
 * `csp_evaluator`, which keeps the lists of hosts serving JSONP endpoints and AngularJS) finds
 * them, less the advice the service cannot follow. Pure: the policy pack, `edgeguard-review` and
 * `edgeguard-csp` call it; `pulumi-edgeguard/csp` exports it.
 */

/** How grave a weakness is: `high`, a known way past the policy; `medium`, a weaker one. */
export type CspWeaknessSeverity = 'high' | 'medium';

/** One weakness of a policy. */
export interface CspWeakness {
  severity: CspWeaknessSeverity;
  /** The directive it is about: the one holding {@link CspWeakness.source}, or the one missing. */
  directive: CspDirectiveName;
  /** The source it is about (`cdn.jsdelivr.net`, `'unsafe-inline'`, `*`); absent for a missing directive. */
  source?: string;
  /** The CSP Evaluator's name of the check that found it, such as `SCRIPT_ALLOWLIST_BYPASS`. */
  check: string;
  /** What is wrong, in the CSP Evaluator's words where they are clear, and what to do. */
  message: string;
}

/** Options of {@link cspWeaknesses}. */
export interface CspWeaknessOptions {
  /**
   * The other policies the browser enforces on the same pages (the enabled `allow` policies of the
   * same host: each becomes a `Content-Security-Policy` header): a directive this policy lacks
   * and one of them sets (`object-src`) is not missing from the pages. Default: none.
   */
  alongside?: readonly (readonly CspDirective[])[];
}

/** A finding of the CSP Evaluator that is reported: as what, and what to do beyond its words. */
interface Kept {
  /** The library's severities of the check that are reported, and as which severity. */
  severities: Partial<Record<Severity, CspWeaknessSeverity>>;
  /** What to do, after the library's description; none where the description says it. */
  advice?: (finding: Finding) => string;
}

/** What to do about a source that allows scripts from everywhere, or from every host of a scheme. */
const LIST_INSTEAD = 'list the hosts or full URLs the pages load from instead.';

/**
 * Each check of the CSP Evaluator 1.1.8 (`Type` of its `finding.js`), reported or left out, and
 * why. The library grades its findings HIGH, MEDIUM, then HIGH_MAYBE, MEDIUM_MAYBE (its doubts,
 * not findings), SYNTAX and INFO; the review reports its high and medium ones. A version of the
 * library with a new check fails to compile here until the check is decided.
 */
const DECISIONS: Record<Type, Kept | 'left out'> = {
  // Syntax: the service's grammar (rules/csp.ts) refuses such a value at preview, naming the part.
  [Type.MISSING_SEMICOLON]: 'left out',
  [Type.UNKNOWN_DIRECTIVE]: 'left out',
  [Type.INVALID_KEYWORD]: 'left out',
  // Nonces: the service refuses them.
  [Type.NONCE_CHARSET]: 'left out',
  [Type.NONCE_LENGTH]: 'left out',
  [Type.STATIC_NONCE]: 'left out',
  // `object-src` and `base-uri` missing (the library's advice says what to write). `script-src`
  // missing, the third, is never reported: the library says it of a policy with neither
  // `script-src` nor `default-src`, which restricts no script, and such a policy (a `connect-src`
  // against exfiltration, say) is not told about scripts it does not govern (see
  // {@link cspWeaknesses}). `base-uri` is found only where scripts are allowed by nonces, or hashes
  // with 'strict-dynamic', which the service refuses: with a list of hosts, a `<base>` can only
  // point the page's relative script URLs at hosts the list already allows.
  [Type.MISSING_DIRECTIVES]: { severities: { [Severity.HIGH]: 'high' } },
  [Type.SCRIPT_UNSAFE_INLINE]: {
    severities: { [Severity.HIGH]: 'high' },
    advice: () =>
      "Injected inline scripts run as the page's own do. Move the inline scripts and event handlers into files the policy allows, or allow each inline script by its hash ('sha256-...'); the service takes no nonces.",
  },
  // Graded MEDIUM_MAYBE, but documented by the library as "medium severity and FP free": the doubt
  // is only whether a page script passes injected text to eval().
  [Type.SCRIPT_UNSAFE_EVAL]: {
    severities: { [Severity.MEDIUM_MAYBE]: 'medium' },
    advice: () =>
      "Remove it once the pages' scripts no longer call eval(), new Function() or setTimeout() with a string.",
  },
  [Type.PLAIN_URL_SCHEMES]: {
    severities: { [Severity.HIGH]: 'high' },
    advice: (finding) =>
      finding.value === 'data:'
        ? 'Injected markup can carry its script in a data: URL: remove it.'
        : `A scheme alone allows every host over it: ${LIST_INSTEAD}`,
  },
  [Type.PLAIN_WILDCARD]: {
    severities: { [Severity.HIGH]: 'high' },
    advice: () => `'*' allows every host, so injected markup can load its own script: ${LIST_INSTEAD}`,
  },
  // HIGH: a host the library knows to serve JSONP endpoints or AngularJS. Its MEDIUM_MAYBE ones,
  // on 'self' and on every other host source ("make sure that this URL doesn't serve JSONP"), are
  // left out: said of every source, they would bury the known bypasses, and the library's remedy
  // for them is nonces or hashes with 'strict-dynamic' instead of a list, which the service refuses.
  [Type.SCRIPT_ALLOWLIST_BYPASS]: {
    severities: { [Severity.HIGH]: 'high' },
    advice: () =>
      'Injected markup can load them and run its own code. Allow the scripts the pages load from that host by their full URLs instead (edgeguard-csp writes them so), none of them AngularJS or a JSONP endpoint.',
  },
  // HIGH: a host serving Flash files. Its MEDIUM_MAYBE ("Can you restrict object-src to 'none'
  // only?") is a doubt, left out as the others.
  [Type.OBJECT_ALLOWLIST_BYPASS]: {
    severities: { [Severity.HIGH]: 'high' },
    advice: () => "Set object-src 'none'.",
  },
  [Type.SRC_HTTP]: {
    severities: { [Severity.MEDIUM]: 'medium' },
    advice: () =>
      'Over plain http anyone on the network path can read and alter what is fetched: write the source with https://.',
  },
  // Informational only (INFO): an IP address as a source, a deprecated directive.
  [Type.IP_SOURCE]: 'left out',
  [Type.DEPRECATED_DIRECTIVE]: 'left out',
  // Made by no check of 1.1.8.
  [Type.SRC_NO_PROTOCOL]: 'left out',
  [Type.EXPERIMENTAL]: 'left out',
  [Type.WILDCARD_URL]: 'left out',
  [Type.X_FRAME_OPTIONS_OBSOLETED]: 'left out',
  [Type.STYLE_UNSAFE_INLINE]: 'left out',
  // 'unsafe-hashes': the service refuses it (and it is a MEDIUM_MAYBE).
  [Type.SCRIPT_UNSAFE_HASHES]: 'left out',
  // The strict CSP checks (the library's STRICTCSP_CHECKS, not run here) recommend 'strict-dynamic'
  // with nonces or hashes, and Trusted Types: directives and keywords the service refuses.
  [Type.STRICT_DYNAMIC]: 'left out',
  [Type.STRICT_DYNAMIC_NOT_STANDALONE]: 'left out',
  [Type.NONCE_HASH]: 'left out',
  [Type.UNSAFE_INLINE_FALLBACK]: 'left out',
  [Type.ALLOWLIST_FALLBACK]: 'left out',
  [Type.REQUIRE_TRUSTED_TYPES_FOR_SCRIPTS]: 'left out',
  // Sources a browser ignores (severity NONE): 'unsafe-inline' beside a hash; the check of
  // 'unsafe-inline' already leaves it out.
  [Type.IGNORED]: 'left out',
  // Reporting (Lighthouse's checks, not run here): the service adds its own, and refuses
  // report-uri and report-to.
  [Type.REPORTING_DESTINATION_MISSING]: 'left out',
  [Type.REPORT_TO_ONLY]: 'left out',
};

/** The order weaknesses are listed in. */
const SEVERITY_ORDER: Record<CspWeaknessSeverity, number> = { high: 0, medium: 1 };

/** The CSP Evaluator's findings on `directives` (its default checks, as of CSP Level 3). */
function evaluate(directives: readonly CspDirective[]): Finding[] {
  const text = directives
    .map((directive) => [directive.name, ...directive.sources.map(formatCspSource)].join(' '))
    .join('; ');
  return new CspEvaluator(new CspParser(text).csp).evaluate();
}

/** Whether `directives` restrict scripts: `script-src`, else `default-src`, is there. */
function governsScripts(directives: readonly CspDirective[]): boolean {
  return directives.some((directive) => directive.name === 'script-src' || directive.name === 'default-src');
}

/**
 * The weaknesses of one policy, high ones first: its findings by the CSP Evaluator of high and
 * medium severity (a host serving JSONP or AngularJS in the script sources, `'unsafe-inline'`,
 * `'unsafe-eval'`, a lone `*` or scheme, `object-src` missing, a source over plain http), each with
 * what to do; advice the service cannot follow (nonces, `'strict-dynamic'`, reporting
 * directives) is left out.
 *
 * A policy is judged for what it governs: one without `script-src` or `default-src` restricts no
 * script, so a missing `object-src` (a way around a script restriction) is not its weakness. And
 * a directive missing from it but set by a policy enforced {@link CspWeaknessOptions.alongside}
 * is not missing from the pages.
 *
 * @param directives - the policy's value, as `parseCspValue` of `rules/csp.ts` gives it.
 */
export function cspWeaknesses(directives: readonly CspDirective[], options: CspWeaknessOptions = {}): CspWeakness[] {
  const scripts = governsScripts(directives);
  let alongside: Finding[][] | undefined;
  const weaknesses: CspWeakness[] = [];
  for (const finding of evaluate(directives)) {
    const decision = DECISIONS[finding.type];
    if (decision === 'left out') continue;
    const severity = decision.severities[finding.severity];
    if (severity === undefined) continue;
    if (finding.type === Type.MISSING_DIRECTIVES) {
      if (!scripts) continue;
      alongside ??= (options.alongside ?? []).map(evaluate);
      if (alongside.some((findings) => !findings.some((other) => other.equals(finding)))) continue;
    }
    weaknesses.push({
      severity,
      // The library names the directives of the value it was given, which are the service's.
      directive: finding.directive as CspDirectiveName,
      ...(finding.value !== undefined ? { source: finding.value } : {}),
      check: Type[finding.type],
      message: decision.advice ? `${finding.description} ${decision.advice(finding)}` : finding.description,
    });
  }
  return weaknesses.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

/** A weakness as one line of text: severity, directive, source and message. */
export function weaknessText(weakness: CspWeakness): string {
  const source = weakness.source !== undefined ? ` ${weakness.source}` : '';
  return `${weakness.severity} ${weakness.directive}${source}: ${weakness.message}`;
}

/** A CSP policy of a stack, as the review reads it. */
export interface PolicyOnHost {
  zoneId: string;
  /** The host its expression selects; `undefined` when the expression cannot be read. */
  hostname: string | undefined;
  /** `block` for an enabled `allow` policy, which the browser enforces. */
  effect: 'block' | 'report' | 'none';
  value: string;
}

/**
 * The weaknesses of each policy of a stack whose value can be read (the review says why the others
 * cannot), each judged with the policies that block on the same host of the same zone
 * ({@link CspWeaknessOptions.alongside}). In the order given.
 */
export function policiesWeaknesses<P extends PolicyOnHost>(
  policies: readonly P[],
): { policy: P; weaknesses: CspWeakness[] }[] {
  const read = policies.flatMap((policy) => {
    const parsed = parseCspValue(policy.value);
    return parsed.ok ? [{ policy, directives: parsed.value }] : [];
  });
  const host = (policy: P) => (policy.hostname === undefined ? undefined : `${policy.zoneId} ${policy.hostname}`);
  return read.map(({ policy, directives }) => ({
    policy,
    weaknesses: cspWeaknesses(directives, {
      alongside: read
        .filter(
          (other) =>
            other.policy !== policy &&
            other.policy.effect === 'block' &&
            host(policy) !== undefined &&
            host(other.policy) === host(policy),
        )
        .map((other) => other.directives),
    }),
  }));
}
