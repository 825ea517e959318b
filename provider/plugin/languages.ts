/**
 * What the Pulumi schema of the `edgeguard` package says beyond its resources so that each
 * language's generated SDK is a real package (`npm run sdk` writes them into `sdk/`): the names it
 * is published under and where the engine downloads the plugin from. The schema generator spreads
 * it into the schema's top level, so `pulumi package get-schema` prints it too.
 *
 * - `pluginDownloadURL`: where a program's engine downloads `pulumi-resource-edgeguard` when it is
 *   not installed, as Pulumi's providers ship theirs: the archive
 *   `pulumi-resource-edgeguard-v<version>-<os>-<arch>.tar.gz` attached to the GitHub release
 *   `v<version>`. Every SDK records it, so an installed SDK brings its plugin.
 * - `meta.supportPack`: the SDKs carry the package's version (the plugin's, so the engine asks for
 *   the plugin of the same version) instead of a `${VERSION}` placeholder, and the Go SDK gets its
 *   `go.mod`.
 * - `language.nodejs.packageName` is this npm package, the TypeScript face of the plugin: code that
 *   Pulumi generates for TypeScript (`pulumi convert`, `pulumi import`) imports the classes from it.
 */
export const schemaLanguages = {
  pluginDownloadURL: 'github://api.github.com/edgeguard/pulumi-edgeguard',
  meta: { moduleFormat: '(.*)', supportPack: true },
  language: {
    nodejs: {
      packageName: 'pulumi-edgeguard',
      packageDescription: 'EdgeGuard page security, custom hostnames and health alerts as Pulumi resources.',
      dependencies: { '@pulumi/pulumi': '^3.259.0' },
    },
    python: {
      packageName: 'pulumi_edgeguard',
      requires: { pulumi: '>=3.142.0,<4.0.0' },
      pyproject: { enabled: true },
    },
    go: {
      importBasePath: 'github.com/edgeguard/pulumi-edgeguard/sdk/go/edgeguard',
      generateResourceContainerTypes: true,
    },
    csharp: { rootNamespace: 'EdgeGuard', packageReferences: { Pulumi: '3.*' } },
    java: { basePackage: 'com.edgeguard' },
  },
} as const;
