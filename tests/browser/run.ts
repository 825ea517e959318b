/**
 * Observing cases in the browsers: one browser, or both at once. Run as a script
 * (`node dist/tests/browser/run.js`), it reads cases as JSON on stdin and writes what each browser
 * did as JSON on stdout: the browser test runs it so, since jest cannot load puppeteer-core.
 */

import { BROWSER_NAMES, type BrowserName } from './browsers';
import type { TruthCase } from './cases';
import { launchBrowser } from './launch';
import { observePage, type Load, type PageGroup } from './observe';
import { TruthServer } from './server';
import { classify, groupIntoPages, type Verdict } from './truth';

/** What one browser did with a list of cases. */
export interface BrowserRun {
  name: BrowserName;
  version: string;
  verdicts: Map<string, Verdict>;
}

/** How many times a page whose loads could not be explained is loaded again before giving up. */
const RETRIES = 1;

/**
 * Launches one browser and observes every case in it, one page at a time. Ids sent to the server
 * carry the browser's name and the attempt, so two browsers and a retry share one server log.
 *
 * @throws naming every case whose outcome stayed unexplained after {@link RETRIES} retry.
 */
export async function observeCases(
  name: BrowserName,
  server: TruthServer,
  cases: readonly TruthCase[],
  progress?: (done: number, total: number) => void,
): Promise<BrowserRun> {
  const launched = await launchBrowser(name);
  const verdicts = new Map<string, Verdict>();
  const problems: string[] = [];
  try {
    const tab = await launched.browser.newPage();
    const pages = groupIntoPages(cases);
    for (const [index, pageCases] of pages.entries()) {
      for (let attempt = 0; ; attempt++) {
        const tag = `${name}.${attempt}`;
        const first = pageCases[0]!;
        const loads: Load[] = pageCases.map((entry) => ({
          caseId: `${tag}.${entry.id}`,
          kind: entry.kind,
          url: entry.url,
        }));
        const group: PageGroup = { page: first.page, policies: first.policies, reportOnly: first.reportOnly, loads };
        const observations = await observePage(tab, server, `${tag}.${index}`, group);
        const unexplained: string[] = [];
        for (const [at, entry] of pageCases.entries()) {
          const verdict = classify(entry, observations[at]!);
          if (typeof verdict === 'string') {
            verdicts.set(entry.id, verdict);
          } else {
            unexplained.push(
              `${entry.id} (${entry.kind} ${entry.url} from ${entry.page} under ${JSON.stringify(entry.policies)}): ` +
                verdict.unexplained,
            );
          }
        }
        if (unexplained.length === 0) {
          break;
        }
        if (attempt >= RETRIES) {
          problems.push(...unexplained);
          break;
        }
      }
      progress?.(index + 1, pages.length);
    }
  } finally {
    await launched.close();
  }
  if (problems.length > 0) {
    throw new Error(`${name}: ${problems.length} case(s) with no verdict:\n${problems.join('\n')}`);
  }
  return { name, version: launched.version, verdicts };
}

/** Observes the cases in both browsers at once (one process each on the machine's cores). */
export async function observeInBothBrowsers(
  server: TruthServer,
  cases: readonly TruthCase[],
  progress?: (name: BrowserName, done: number, total: number) => void,
): Promise<Record<BrowserName, BrowserRun>> {
  const [chromium, firefox] = await Promise.all(
    BROWSER_NAMES.map((name) => observeCases(name, server, cases, (done, total) => progress?.(name, done, total))),
  );
  return { chromium: chromium!, firefox: firefox! };
}

/** What {@link observeInBothBrowsers} found, as the script writes it. */
export type RunsJson = Record<BrowserName, { version: string; verdicts: Record<string, Verdict> }>;

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
  }
  const cases = JSON.parse(Buffer.concat(chunks).toString('utf8')) as TruthCase[];
  const server = await TruthServer.start();
  try {
    const runs = await observeInBothBrowsers(server, cases);
    const json = Object.fromEntries(
      BROWSER_NAMES.map((name) => [
        name,
        { version: runs[name].version, verdicts: Object.fromEntries(runs[name].verdicts) },
      ]),
    ) as RunsJson;
    process.stdout.write(JSON.stringify(json));
  } finally {
    await server.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
