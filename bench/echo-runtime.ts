import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Runtime } from '../provider/runtime/contract';

/**
 * The runtime of the echo plugin (bench/engine.ts): `CspPolicy`'s place in the plugin's resource
 * table, answering every call without the service. create gives a new id and echoes the inputs,
 * read gives back what it is given, like the dynamic echo of bench/projects/echo. Everything else
 * (the server, its wire translation, the single executable) is the plugin's own, so the plugin's
 * time over this one's is what calling the service costs, nothing else.
 */

type Values = Record<string, unknown>;

/** The echo in place of `CspPolicy`'s runtime. */
export const runtime: Runtime<Values, Values> = {
  resource: 'CspPolicy',
  description: 'An echo of the inputs.',
  inputs: z.looseObject({ zoneId: z.string().meta({ description: 'The zone.' }) }),
  outputs: z.object({}),
  diff: (olds, news) => Object.keys(news).filter((key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key])),
  create: (_ctx, inputs) => {
    const policyId = randomUUID().replaceAll('-', '');
    return Promise.resolve({ id: policyId, outs: { ...inputs, policyId } });
  },
  read: (_ctx, _id, props) => Promise.resolve({ props, inputs: props }),
  update: (_ctx, _id, _olds, news) => Promise.resolve(news),
  delete: () => Promise.resolve(),
};
