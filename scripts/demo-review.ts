import type { Stack } from '@pulumi/pulumi/automation';
import { renderMarkdown } from '../provider/format/review-markdown';
import { reviewStack } from '../provider/review/review-stack';

/**
 * The end of `npm run demo`: the review a pull request of the flagship would get
 * (`edgeguard-review`: a preview with EdgeGuard's policy pack), printed as its Markdown.
 *
 * @returns the review's exit status: 0 when no mandatory policy is violated (the demo world is
 *   built so that nothing the flagship's policies block is a violation), 1 or 2 otherwise.
 */
export async function reviewFlagship(stack: Stack): Promise<number> {
  console.log(
    "\nThe review of the flagship by EdgeGuard's policy pack (what edgeguard-review writes for a pull request):\n",
  );
  const report = await reviewStack({
    workDir: stack.workspace.workDir,
    stackName: stack.name,
    envVars: stack.workspace.envVars,
  });
  console.log(renderMarkdown(report));
  if (report.exitCode === 2) console.error(`demo: the review could not be done: ${report.reason}`);
  return report.exitCode;
}
