import * as path from 'node:path';
import type { LoggedRequest } from '../../../emulator/core/request-log';
import { engineStack, type EngineStack, type OperationResult } from '../../helpers/engine';
import { ACCOUNT_ID, startTestEmulator, ZONE_ID, type TestEmulator } from '../../helpers/emulator';
import { apiPath, read, secondsSince } from './support';

/**
 * 40 custom hostnames in one `pulumi up`, against the service's certificate issuance limit (spec
 * 8: 15 successful creates per zone in any 60 s; the 16th is refused with 429 and starts a 30 s
 * block). With EdgeGuard as the only client, its pacing keeps every create under the limit: no
 * 429 at all. When other traffic has used the zone's quota just before, EdgeGuard meets 429s,
 * waits them out and still creates every hostname exactly once. These run in real time (about 2
 * and 3 minutes), side by side: on zones of their own (the limit is per zone) and with tokens of
 * their own (the API's limit is per credential), so neither is the other's traffic.
 */

const TOKEN = 'faults-issuance-token-5e1c8a27';
/** The token of the run that shares its zone's quota with other traffic. */
const BUSY_TOKEN = 'faults-issuance-busy-token-93d0b4f6';
const PROJECT = path.join(__dirname, 'programs', 'hostnames');
const COUNT = 40;
const LIMIT = 15;
const WINDOW_MS = 60_000;
/** A second zone of the same account, for the run that shares its quota with other traffic. */
const BUSY_ZONE = 'c0000000000000000000000000000002';

let emu: TestEmulator;
const stacks: EngineStack[] = [];
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  emu = await startTestEmulator({ tokens: [TOKEN, BUSY_TOKEN] });
  expect(
    (await emu.control('POST', 'seed', { zones: [{ id: BUSY_ZONE, name: 'busy.example', account_id: ACCOUNT_ID }] }))
      .status,
  ).toBe(200);
});
afterAll(async () => {
  process.stdout.write(`issuance-limit figures: ${JSON.stringify(figures)}\n`);
  for (const stack of stacks) await stack.dispose();
  await emu?.close();
});

function hostnamesStack(zoneId: string, domain: string, token: string): Promise<EngineStack> {
  return engineStack({
    projectDir: PROJECT,
    emu,
    token,
    config: {
      'edgeguard-faults-hostnames:zoneId': { value: zoneId },
      'edgeguard-faults-hostnames:count': { value: String(COUNT) },
      'edgeguard-faults-hostnames:domain': { value: domain },
    },
  }).then((stack) => {
    stacks.push(stack);
    return stack;
  });
}

/**
 * Prints what the engine printed for an up that did not create every hostname. Seen once (busy
 * run, 142 s, `succeeded` with 30 creates): the engine can end an update as succeeded when the
 * program's calls are cut off, and the up's output is all there is to tell why.
 */
function printIfShort(label: string, up: OperationResult): void {
  const creates = up.summary.resourceChanges.create;
  if (creates !== COUNT + 1)
    process.stdout.write(
      `issuance-limit: the ${label} up created ${creates}, not ${COUNT + 1}:\n${up.stdout}\n${up.stderr}\n`,
    );
}

/** The creates (POST) of custom hostnames in `zoneId` among `entries`. */
function creates(entries: readonly LoggedRequest[], zoneId: string): LoggedRequest[] {
  return entries.filter((e) => e.method === 'POST' && apiPath(e) === `zones/${zoneId}/custom_hostnames`);
}

/** The most successful creates found in any window of 60 s (by the emulator's clock). */
function busiestWindow(entries: readonly LoggedRequest[]): number {
  const times = entries
    .filter((e) => e.status === 200)
    .map((e) => Date.parse(e.time))
    .sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= WINDOW_MS) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** Every hostname of `zoneId` (the emulator lists at most 1000 per page). */
async function hostnamesOf(zoneId: string): Promise<string[]> {
  const list = await read<Array<{ hostname: string }>>(emu, TOKEN, `zones/${zoneId}/custom_hostnames?per_page=1000`);
  return list.map((h) => h.hostname).sort();
}

const expected = (domain: string) =>
  Array.from({ length: COUNT }, (_, i) => `customer-${String(i + 1).padStart(2, '0')}.${domain}`).sort();

/**
 * For each refused create, how long after the create that filled its window slot (the 15th
 * accepted one before it) it arrived, in ms: under 60,000 means the window was still full.
 */
function refusalGaps(posts: readonly LoggedRequest[]): number[] {
  const acceptedTimes: number[] = [];
  const gaps: number[] = [];
  for (const post of posts) {
    const at = Date.parse(post.time);
    if (post.status === 429 && acceptedTimes.length >= LIMIT)
      gaps.push(at - acceptedTimes[acceptedTimes.length - LIMIT]!);
    if (post.status === 200) acceptedTimes.push(at);
  }
  return gaps;
}

// Alone, EdgeGuard's pacing keeps every create under the service's limit: not one 429 in 40
// creates, each hostname created once, never more than 15 accepted in 60 s of the service's clock.
// The pacer counts a create from the moment its answer arrives, no earlier than the service
// counted it, so its window never ends before the service's.
test.concurrent(
  'with EdgeGuard the only client, 40 hostnames are created in one up without a single 429',
  async () => {
    const engine = await hostnamesStack(ZONE_ID, 'paced.example', TOKEN);
    const mark = emu.mark();
    const started = Date.now();
    const up = await engine.up();
    figures.aloneSeconds = secondsSince(started);
    printIfShort('alone', up);
    expect(up.summary.result).toBe('succeeded');
    expect(up.summary.resourceChanges).toEqual({ create: COUNT + 1 });
    expect(await hostnamesOf(ZONE_ID)).toEqual(expected('paced.example'));

    const posts = creates(await emu.requests(mark), ZONE_ID);
    const accepted = posts.filter((e) => e.status === 200);
    const first = Date.parse(accepted[0]!.time);
    const last = Date.parse(accepted.at(-1)!.time);
    figures.alone = {
      posts: posts.length,
      refused429: posts.filter((e) => e.status === 429).length,
      firstToLastAcceptedSeconds: (last - first) / 1000,
      refusedAfterMs: refusalGaps(posts),
      statusesInOrder: posts.map((e) => e.status).join(','),
    };
    // Each hostname created exactly once, never more than the limit in a window, and 40 creates at
    // 15 per minute cannot take less than two minutes.
    expect(accepted).toHaveLength(COUNT);
    expect(busiestWindow(posts)).toBe(LIMIT);
    expect(last - first).toBeGreaterThanOrEqual(2 * WINDOW_MS - 1000);
    // Alone, EdgeGuard never meets the limit.
    expect(posts.map((e) => e.status)).toEqual(Array(COUNT).fill(200));
    expect((await emu.requests(mark)).filter((e) => e.status === 429 && !apiPath(e).includes(BUSY_ZONE))).toEqual([]);
  },
  330_000,
);

test.concurrent(
  'after other traffic used the zone quota, EdgeGuard waits out the 429s and creates each of the 40 hostnames once',
  async () => {
    const engine = await hostnamesStack(BUSY_ZONE, 'busy-customers.example', BUSY_TOKEN);
    // Someone else issues 15 certificates in the zone: its quota for the next minute is gone.
    const others = Array.from({ length: LIMIT }, (_, i) => `other-${i}.elsewhere.example`);
    for (const hostname of others) {
      const reply = await emu.api('POST', `zones/${BUSY_ZONE}/custom_hostnames`, {
        headers: { authorization: `Bearer ${BUSY_TOKEN}` },
        body: { hostname, ssl: { method: 'txt', type: 'dv', certificate_authority: '' } },
      });
      expect(reply.status).toBe(200);
    }
    const mark = emu.mark();
    const started = Date.now();
    const up = await engine.up();
    figures.busySeconds = secondsSince(started);
    printIfShort('busy', up);
    expect(up.summary.result).toBe('succeeded');
    expect(up.summary.resourceChanges).toEqual({ create: COUNT + 1 });
    expect(await hostnamesOf(BUSY_ZONE)).toEqual([...expected('busy-customers.example'), ...others].sort());

    const posts = creates(await emu.requests(mark), BUSY_ZONE);
    const refused = posts.filter((e) => e.status === 429);
    const accepted = posts.filter((e) => e.status === 200);
    figures.busy = {
      posts: posts.length,
      refused429: refused.length,
      accepted: accepted.length,
      firstAcceptedAfterSeconds: accepted.length > 0 ? (Date.parse(accepted[0]!.time) - started) / 1000 : null,
      refusedAfterMs: refusalGaps(posts),
      statusesInOrder: posts.map((e) => e.status).join(','),
    };
    // Exactly one accepted create per hostname, none refused for another reason, and every 429
    // came before the window had room again: EdgeGuard waited rather than giving up.
    expect(accepted).toHaveLength(COUNT);
    expect(posts.filter((e) => e.status !== 200 && e.status !== 429)).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);
    expect(busiestWindow(posts)).toBeLessThanOrEqual(LIMIT);
  },
  420_000,
);
