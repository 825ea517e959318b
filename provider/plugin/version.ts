/**
 * The plugin's version: the package's. The require is static so that the bundler of the single
 * executable inlines the file; its path is the compiled module's (dist/provider/plugin/), where
 * the plugin runs and the bundle starts.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const PLUGIN_VERSION: string = (require('../../../package.json') as { version: string }).version;
