import * as nodeModule from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * The policy pack's start: the engine waits for the pack to serve before it runs the program, at
 * every preview with the pack. `@pulumi/policy` 1.21 requires `@pulumi/pulumi`'s root module for
 * its assets alone (`deserialize.js`), and that root loads the whole SDK, the Automation API's npm
 * tooling among it: about 770 modules and 0.6 s of CPU, against 0.12 s for what the pack uses
 * (bench/RESULTS.md, issue 20). So `@pulumi/policy`'s own requests for that root resolve to
 * `./pulumi-assets.ts`, which loads the assets alone, and those for `@pulumi/pulumi/runtime/rpc`,
 * of which it uses four constants, to `./pulumi-signatures.ts` (issue 30); anyone else's still get
 * the SDK's modules. The pack imports this module first, before `@pulumi/policy` loads.
 */
const IN_PLACE_OF: ReadonlyMap<string, string> = new Map([
  ['@pulumi/pulumi', pathToFileURL(require.resolve('./pulumi-assets')).href],
  ['@pulumi/pulumi/runtime/rpc', pathToFileURL(require.resolve('./pulumi-signatures')).href],
]);

nodeModule.registerHooks({
  resolve(specifier, context, nextResolve) {
    const url = IN_PLACE_OF.get(specifier);
    if (url !== undefined && context.parentURL?.includes('/node_modules/@pulumi/policy/'))
      return { url, format: 'commonjs', shortCircuit: true };
    return nextResolve(specifier, context);
  },
});
