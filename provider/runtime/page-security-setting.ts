import './compile-cache';
import { z } from 'zod';
import { getSettings, updateSettings, type PageSecuritySettings } from '../client/page-security';
import { zoneIdSchema } from './check';
import type { Runtime } from './contract';
import { defineRuntime } from '../dynamic/provider';

/**
 * Runtime of `PageSecuritySetting`: page security on or off for one zone (spec 2.2). The zone's
 * settings always exist, so the resource's id is the zone id; creating it takes over the zone's
 * setting, as adopting does for the other resources: it records the value found, so that deleting
 * it puts that value back instead of leaving the zone in the state this stack set, and writes only
 * when the declared value differs.
 */

/** The inputs, as `check` accepts them. */
export const inputsSchema = z.object({
  zoneId: zoneIdSchema,
  enabled: z.boolean({
    error: (issue) =>
      issue.input === undefined
        ? 'is required: true to turn page security on, false to turn it off'
        : `must be true or false (got ${JSON.stringify(issue.input)})`,
  }),
});

/** The checked inputs. */
export type PageSecuritySettingInputs = z.output<typeof inputsSchema>;

/** The outputs kept in the state. */
export interface PageSecuritySettingOutputs extends PageSecuritySettingInputs {
  updatedAt: string;
  /** Wire field `use_<vendor>_reporting_endpoint`. */
  useVendorReportingEndpoint: boolean;
  useConnectionUrlPath: boolean;
  /** What `enabled` was before this resource was created: what delete puts back. */
  enabledBeforeCreate: boolean;
}

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

/** Which properties differ between the old outputs and the new inputs. */
export function changedProperties(
  olds: Partial<PageSecuritySettingOutputs>,
  news: PageSecuritySettingInputs,
): Array<keyof PageSecuritySettingInputs> {
  const changed: Array<keyof PageSecuritySettingInputs> = [];
  if (olds.zoneId !== news.zoneId) changed.push('zoneId');
  if (olds.enabled !== news.enabled) changed.push('enabled');
  return changed;
}

/** The runtime of `PageSecuritySetting`. */
export const runtime: Runtime<PageSecuritySettingInputs, PageSecuritySettingOutputs> = {
  resource: 'PageSecuritySetting',
  inputs: inputsSchema,
  // Another zone's setting is another object; the old zone gets its value back on delete.
  replaceOnChanges: ['zoneId'],

  diff(olds, news) {
    const changed = changedProperties(olds, news);
    return { changed, replaces: changed.filter((name) => name === 'zoneId') };
  },

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

/** The dynamic provider of `PageSecuritySetting`. */
export const provider = defineRuntime(runtime);
