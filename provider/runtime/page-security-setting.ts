import type * as pulumi from '@pulumi/pulumi';
import { z } from 'zod';
import { NotFoundError } from '../client/errors';
import { getSettings, updateSettings, zoneIdSchema, type PageSecuritySettings } from '../client/page-security';
import { checkInputs } from './check';
import { configure, http } from './context';

/**
 * Runtime of `PageSecuritySetting`: page security on or off for one zone (spec 2.2). The zone's
 * settings always exist, so the resource's id is the zone id; creating it records the value found
 * so that deleting it puts that value back instead of leaving the zone in the state this stack set.
 */

/** The inputs, as `check` accepts them. */
export const inputsSchema = z.object({
  zoneId: zoneIdSchema,
  enabled: z.boolean({
    error: (issue) => (issue.input === undefined ? 'is required: true to turn page security on, false to turn it off' : `must be true or false (got ${JSON.stringify(issue.input)})`),
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
export function changedProperties(olds: Partial<PageSecuritySettingOutputs>, news: PageSecuritySettingInputs): Array<keyof PageSecuritySettingInputs> {
  const changed: Array<keyof PageSecuritySettingInputs> = [];
  if (olds.zoneId !== news.zoneId) changed.push('zoneId');
  if (olds.enabled !== news.enabled) changed.push('enabled');
  return changed;
}

/** The dynamic provider of `PageSecuritySetting`. */
export const provider: pulumi.dynamic.ResourceProvider = {
  configure,

  async check(_olds, news) {
    return checkInputs(inputsSchema, news);
  },

  async diff(_id, olds: PageSecuritySettingOutputs, news: PageSecuritySettingInputs) {
    const changed = changedProperties(olds, news);
    // Another zone's setting is another object; the old zone gets its value back on delete.
    return { changes: changed.length > 0, replaces: changed.filter((name) => name === 'zoneId') };
  },

  async create(inputs: PageSecuritySettingInputs) {
    const client = http();
    const before = await getSettings(client, inputs.zoneId);
    await updateSettings(client, inputs.zoneId, { enabled: inputs.enabled });
    // The PUT answers with `enabled` and `updated_at` only (spec 4): the flags need a read.
    const live = await getSettings(client, inputs.zoneId);
    return { id: inputs.zoneId, outs: outputs(inputs.zoneId, live, before.enabled) };
  },

  async read(id, props?: Partial<PageSecuritySettingOutputs>) {
    let live: PageSecuritySettings;
    try {
      live = await getSettings(http(), id);
    } catch (error) {
      if (error instanceof NotFoundError) return {};
      throw error;
    }
    // A resource read with `get` (no create) has no earlier value: what it is now is the one to keep.
    const outs = outputs(id, live, props?.enabledBeforeCreate ?? live.enabled);
    return { id, props: outs, inputs: { zoneId: id, enabled: live.enabled } };
  },

  async update(id, olds: PageSecuritySettingOutputs, news: PageSecuritySettingInputs) {
    const client = http();
    await updateSettings(client, id, { enabled: news.enabled });
    const live = await getSettings(client, id);
    return { outs: outputs(id, live, olds.enabledBeforeCreate) };
  },

  async delete(id, props: PageSecuritySettingOutputs) {
    try {
      await updateSettings(http(), id, { enabled: props.enabledBeforeCreate });
    } catch (error) {
      // The zone itself is gone, and its settings with it.
      if (error instanceof NotFoundError) return;
      throw error;
    }
  },
};
