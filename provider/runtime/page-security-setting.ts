import './compile-cache';
import { z } from 'zod';
import { getSettings, updateSettings, type PageSecuritySettings } from '../client/page-security';
import { zoneIdSchema } from './check';
import type { Runtime } from './contract';

/**
 * Runtime of `PageSecuritySetting`: page security on or off for one zone (spec 2.2). The zone's
 * settings always exist, so the resource's id is the zone id; creating it takes over the zone's
 * setting, as adopting does for the other resources: it records the value found, so that deleting
 * it puts that value back instead of leaving the zone in the state this stack set, and writes only
 * when the declared value differs.
 */

/** The inputs, as `check` accepts them. */
export const inputsSchema = z.object({
  zoneId: zoneIdSchema.meta({
    description: `The zone whose page security this sets: its 32-character hexadecimal id. Another zone's
      setting is another object: the old zone gets its earlier value back.`,
    replaces: true,
    output: 'The zone id.',
  }),
  enabled: z
    .boolean({
      error: (issue) =>
        issue.input === undefined
          ? 'is required: true to turn page security on, false to turn it off'
          : `must be true or false (got ${JSON.stringify(issue.input)})`,
    })
    .meta({
      description: 'Whether page security is on for the zone.',
      output: 'Whether page security is on, as last read from the service.',
    }),
});

/** The checked inputs. */
export type PageSecuritySettingInputs = z.output<typeof inputsSchema>;

/** The outputs that are not inputs. */
const outputsSchema = z.object({
  updatedAt: z.string().meta({ description: 'When the settings last changed (ISO 8601 UTC).' }),
  useVendorReportingEndpoint: z.boolean().meta({
    description:
      "Whether reports go to the vendor's reporting endpoint (wire field `use_<vendor>_reporting_endpoint`).",
  }),
  useConnectionUrlPath: z.boolean().meta({
    description: 'Whether connection reports keep the URL path (`use_connection_url_path`).',
  }),
  enabledBeforeCreate: z.boolean().meta({
    description: "The zone's `enabled` before this resource was created: what delete restores.",
  }),
});

/** The outputs kept in the state. */
export type PageSecuritySettingOutputs = PageSecuritySettingInputs & z.output<typeof outputsSchema>;

function outputs(zoneId: string, live: PageSecuritySettings, enabledBeforeCreate: boolean): PageSecuritySettingOutputs {
  return {
    zoneId,
    enabled: live.enabled,
    updatedAt: live.updated_at,
    useVendorReportingEndpoint: live.use_vendor_reporting_endpoint,
    useConnectionUrlPath: live.use_connection_url_path,
    enabledBeforeCreate,
  };
}

/** The runtime of `PageSecuritySetting`. */
export const runtime: Runtime<PageSecuritySettingInputs, PageSecuritySettingOutputs> = {
  resource: 'PageSecuritySetting',
  description: `Page security on or off for one zone (spec 2.2). The id is the zone id. The zone's value before
    creation is kept in \`enabledBeforeCreate\` and put back on delete.

    A zone has exactly one setting, so there is nothing to adopt and no \`adoptId\`: create always takes over
    the zone's existing setting, writing only when \`enabled\` differs from it.`,
  inputs: inputsSchema,
  outputs: outputsSchema,

  async create(ctx, inputs) {
    const client = ctx.client;
    const before = await getSettings(client, inputs.zoneId);
    // A PUT of the value the zone has would still change `updated_at`: taking over changes nothing.
    if (before.enabled === inputs.enabled) {
      return { id: inputs.zoneId, outs: outputs(inputs.zoneId, before, before.enabled) };
    }
    await updateSettings(client, inputs.zoneId, { enabled: inputs.enabled });
    // The PUT answers with `enabled` and `updated_at` only (spec 4): the flags need a read.
    const live = await getSettings(client, inputs.zoneId);
    return { id: inputs.zoneId, outs: outputs(inputs.zoneId, live, before.enabled) };
  },

  async read(ctx, id, props) {
    const live = await getSettings(ctx.client, id);
    // A resource read with `get` (no create) has no earlier value: what it is now is the one to keep.
    return {
      props: outputs(id, live, props.enabledBeforeCreate ?? live.enabled),
      inputs: { zoneId: id, enabled: live.enabled },
    };
  },

  async update(ctx, id, olds, news) {
    const client = ctx.client;
    await updateSettings(client, id, { enabled: news.enabled });
    return outputs(id, await getSettings(client, id), olds.enabledBeforeCreate);
  },

  // A zone that is gone (404) took its settings with it.
  async delete(ctx, id, props) {
    await updateSettings(ctx.client, id, { enabled: props.enabledBeforeCreate });
  },
};
