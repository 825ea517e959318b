import type { ReviewReport } from '../../provider/review/report';

/**
 * A review report of stack `dev` of project `shop` (program `index.ts`) with nothing in it but
 * `parts`: what the tests of the report's formats (Markdown, SARIF) give them. Exit status 0
 * unless `parts` says otherwise.
 */
export function reviewReport(parts: Partial<ReviewReport> = {}): ReviewReport {
  return {
    project: 'shop',
    stack: 'dev',
    mainFile: 'index.ts',
    exitCode: 0,
    changes: [],
    drift: null,
    policies: [],
    pools: [],
    inventories: [],
    unjudged: [],
    violations: [],
    ...parts,
  };
}
