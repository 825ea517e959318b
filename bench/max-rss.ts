import * as fs from 'node:fs';

/**
 * Preloaded (`node --require`) into a command the benchmarks measure: at exit, writes the process's
 * peak RSS (KiB, `process.resourceUsage().maxRSS`) to the file `EDGEGUARD_BENCH_RSS_FILE` names.
 */
const file = process.env.EDGEGUARD_BENCH_RSS_FILE;
if (file !== undefined && file !== '')
  process.on('exit', () => fs.writeFileSync(file, String(process.resourceUsage().maxRSS)));
