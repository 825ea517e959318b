import type * as clients from '../client/shared';
import type * as loadBalancing from '../client/load-balancing';
import type * as pageSecurity from '../client/page-security';
import type * as settings from '../settings';

/** What the helpers use of the client layer. */
export interface ClientLayer {
  clientFrom: typeof clients.clientFrom;
  withSettingHint: typeof settings.withSettingHint;
  SETTINGS: typeof settings.SETTINGS;
  pageSecurity: typeof pageSecurity;
  loadBalancing: typeof loadBalancing;
}

/**
 * The client layer, loaded at a helper's first call rather than with the package. It brings undici
 * and zod, about 70 ms that every `pulumi preview` and `up` of a program which only declares
 * resources would pay otherwise (bench/RESULTS.md, issue 12). `require` keeps the helpers'
 * signatures as they are (`stackReadSettings` returns its Output at once); Node loads the modules
 * once and returns them from its cache afterwards.
 */
export function clientLayer(): ClientLayer {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, as said above */
  const { withSettingHint, SETTINGS } = require('../settings') as typeof settings;
  return {
    clientFrom: (require('../client/shared') as typeof clients).clientFrom,
    withSettingHint,
    SETTINGS,
    pageSecurity: require('../client/page-security') as typeof pageSecurity,
    loadBalancing: require('../client/load-balancing') as typeof loadBalancing,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}
