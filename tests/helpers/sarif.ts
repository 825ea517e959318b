import { z } from 'zod';

/**
 * The part of SARIF 2.1.0 that `edgeguard-review --sarif` writes, with what code scanning needs of
 * it (GitHub's "SARIF support for code scanning"): strict objects, so a property the writer adds
 * that the subset does not name fails the test until it is named here. The field names and value
 * sets are SARIF's; the writer's types are the whole model's (`sarif.Log` of @types/sarif), so the
 * compiler holds it to SARIF and this to what it promises.
 */

const text = z.strictObject({ text: z.string().min(1) });
const level = z.enum(['none', 'note', 'warning', 'error']);

/** A URI reference from the repository's root: relative, no `..`, no scheme. */
const repositoryPath = z
  .string()
  .min(1)
  .refine((uri) => !uri.startsWith('/') && !/^[a-z][a-z0-9+.-]*:/i.test(uri) && !uri.split('/').includes('..'), {
    message: 'must be a path from the repository root',
  });

const location = z.strictObject({
  physicalLocation: z.strictObject({
    artifactLocation: z.strictObject({ uri: repositoryPath }),
    region: z.strictObject({
      startLine: z.number().int().min(1),
      startColumn: z.number().int().min(1).optional(),
    }),
  }),
  logicalLocations: z
    .array(
      z.strictObject({ name: z.string().min(1), fullyQualifiedName: z.string().min(1), kind: z.literal('resource') }),
    )
    .length(1)
    .optional(),
});

const rule = z.strictObject({
  id: z.string().min(1),
  shortDescription: text,
  fullDescription: text,
  defaultConfiguration: z.strictObject({ level }),
  helpUri: z.url(),
  // Code scanning refuses a rule without help (GitHub's GH2012), shows its Markdown with each
  // alert, and ranks a security finding (tag `security`) by its score.
  help: z.strictObject({ text: z.string().min(1), markdown: z.string().min(1) }),
  properties: z
    .strictObject({
      tags: z.array(z.string().min(1)).min(1),
      'security-severity': z
        .string()
        .regex(/^(10\.0|\d\.\d)$/)
        .optional(),
    })
    .refine((bag) => bag['security-severity'] === undefined || bag.tags.includes('security'), {
      message: 'a rule with a security-severity is tagged security',
    }),
});

const result = z.strictObject({
  ruleId: z.string().min(1),
  level,
  message: text,
  locations: z.array(location).length(1),
  partialFingerprints: z.strictObject({ 'edgeguardFinding/v1': z.string().regex(/^[0-9a-f]{64}$/) }),
});

/** The SARIF log `edgeguard-review` writes: one run of one tool. */
export const sarifLogSchema = z.strictObject({
  $schema: z.url(),
  version: z.literal('2.1.0'),
  runs: z
    .array(
      z
        .strictObject({
          tool: z.strictObject({
            driver: z.strictObject({
              name: z.string().min(1),
              version: z.string().min(1),
              informationUri: z.url(),
              rules: z.array(rule).min(1),
            }),
          }),
          automationDetails: z.strictObject({ id: z.string().regex(/\/$/, 'a category ends with /') }),
          invocations: z
            .array(
              z.strictObject({
                executionSuccessful: z.boolean(),
                toolExecutionNotifications: z
                  .array(z.strictObject({ level: z.literal('error'), message: text }))
                  .optional(),
              }),
            )
            .length(1),
          results: z.array(result),
        })
        .refine((run) => run.results.every((r) => run.tool.driver.rules.some((rule) => rule.id === r.ruleId)), {
          message: "every result's ruleId is a rule of the driver",
          path: ['results'],
        }),
    )
    .length(1),
});

/** A SARIF log as this subset reads it. */
export type SarifLog = z.infer<typeof sarifLogSchema>;

/** The log, checked against the subset; the failure names the path of each part that does not fit. */
export function parseSarif(log: unknown): SarifLog {
  const parsed = sarifLogSchema.safeParse(log);
  if (!parsed.success) throw new Error(`not the SARIF edgeguard-review writes:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
