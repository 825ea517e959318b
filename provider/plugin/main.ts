#!/usr/bin/env node
import { serve } from './server';

/**
 * `pulumi-resource-edgeguard <engine address>`: how the engine runs the plugin. It serves one
 * provider instance and prints its port alone on the first line of standard output, which the
 * engine reads to connect; the engine ends the process when it is done with the provider.
 */
async function main(args: string[]): Promise<void> {
  // The engine puts its own flags first (`--logtostderr`, `-v=9`, `--tracing <endpoint>`) and its address last.
  const engineAddress = args.at(-1);
  const plugin = await serve(engineAddress === undefined || engineAddress.startsWith('-') ? {} : { engineAddress });
  process.stdout.write(`${plugin.port}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`pulumi-resource-edgeguard: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
