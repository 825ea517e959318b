import * as path from 'node:path';
import { request } from 'undici';
import { DEMO } from '../emulator/seed/demo';
import { startEmulator } from '../emulator/server';

/**
 * `npm run demo` until the Pulumi side lands: starts the emulator with durable state under
 * `.edgeguard/emulator` (the demo world is loaded the first time), reads the demo world back
 * through the API as a client would, and stops.
 */

const MALICIOUS_BELOW = 10;

async function get<T>(baseUrl: string, pathAndQuery: string): Promise<{ result: T; result_info?: { total_count: number; total_pages: number } }> {
  const response = await request(`${baseUrl}/${pathAndQuery}`, { headers: { authorization: 'Bearer dev-token' } });
  const body = (await response.body.json()) as { result: T; result_info?: { total_count: number; total_pages: number } };
  if (response.statusCode !== 200) throw new Error(`GET ${pathAndQuery}: HTTP ${response.statusCode} ${JSON.stringify(body)}`);
  return body;
}

async function main(): Promise<void> {
  const dataDir = path.resolve(__dirname, '..', '..', '.edgeguard', 'emulator');
  const emulator = await startEmulator({ port: 0, dataDir });
  try {
    const base = emulator.baseUrl;
    console.log(`Emulator: ${base} (state in ${path.relative(process.cwd(), dataDir)})\n`);
    const zone = `zones/${DEMO.zoneId}/page_security`;
    const settings = await get<{ enabled: boolean }>(base, zone);
    console.log(`Zone ${DEMO.zoneName} (${DEMO.zoneId}): page security ${settings.result.enabled ? 'on' : 'off'}`);

    type Script = { url: string; host: string; js_integrity_score: number };
    const scripts = await get<Script[]>(base, `${zone}/scripts?per_page=1000`);
    const infrequent = await get<Script[]>(base, `${zone}/scripts?status=infrequent&per_page=1000`);
    console.log(`Scripts detected: ${scripts.result.length} active, ${infrequent.result.length} infrequent`);
    for (const script of [...scripts.result, ...infrequent.result].filter((s) => s.js_integrity_score < MALICIOUS_BELOW)) {
      console.log(`  malicious (js_integrity_score ${script.js_integrity_score} < ${MALICIOUS_BELOW}) on ${script.host}: ${script.url}`);
    }
    const connections = await get<Array<{ url: string; domain_reported_malicious: boolean }>>(base, `${zone}/connections?per_page=1000`);
    console.log(`Connections: ${connections.result.length}`);
    for (const connection of connections.result.filter((c) => c.domain_reported_malicious)) {
      console.log(`  to a domain reported malicious: ${connection.url}`);
    }
    const cookies = await get<unknown[]>(base, `${zone}/cookies?per_page=1000`);
    console.log(`Cookies: ${cookies.result.length}`);
    const policies = await get<unknown[]>(base, `${zone}/policies`);
    console.log(`CSP policies: ${policies.result.length}`);

    const pools = await get<Array<{ notification_email: string }>>(base, `accounts/${DEMO.accountId}/load_balancers/pools`);
    const legacy = pools.result.filter((p) => p.notification_email !== '').length;
    console.log(`\nAccount Acme Corp (${DEMO.accountId}): ${pools.result.length} pools, ${legacy} still on the legacy notification_email`);
    console.log('\nNext: `pulumi up` of the flagship program against this emulator (issues 3 and 4).');
  } finally {
    await emulator.close();
  }
}

main().catch((error: unknown) => {
  console.error(`demo: ${(error as Error).message}`);
  process.exit(1);
});
