/**
 * The provider plugin's names, apart from everything else so that the resource classes (loaded by
 * every program) and the plugin share them without loading each other.
 */

/** The plugin's package name: `pulumi-resource-edgeguard` serves it, tokens begin with it. */
export const PACKAGE = 'edgeguard';

/** The token of `resource` in the plugin's schema: `edgeguard:index:CspPolicy`. */
export function resourceToken(resource: string): string {
  return `${PACKAGE}:index:${resource}`;
}
