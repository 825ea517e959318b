import * as nodeModule from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * The policy pack's start: the engine waits for the pack to serve before it runs the program, at
 * every preview with the pack. `@pulumi/policy` 1.21 requires `@pulumi/pulumi`'s root module for
 * its assets alone (`deserialize.js`), and that root loads the whole SDK, the Automation API's npm
 * tooling among it: about 770 modules and 0.6 s of CPU, against 0.12 s for what the pack uses
 * (bench/RESULTS.md, issue 20). So `@pulumi/policy`'s own requests for that root resolve to
 * `./pulumi-assets.ts`, which loads the assets alone; anyone else's still get the whole SDK. The
 * pack imports this module first, before `@pulumi/policy` loads.
 */
const ASSETS = pathToFileURL(require.resolve('./pulumi-assets')).href;

nodeModule.registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === '@pulumi/pulumi' && context.parentURL?.includes('/node_modules/@pulumi/policy/'))
      return { url: ASSETS, format: 'commonjs', shortCircuit: true };
    return nextResolve(specifier, context);
  },
});
