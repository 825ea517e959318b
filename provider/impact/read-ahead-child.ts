import { lowerPriority, USUAL_PRIORITY_ARG } from '../helpers/priority';
import type * as http from '../client/http';
import type * as pageSecurity from '../client/page-security';
import type * as listed from './listed';
import type * as listingFile from './listing-file';
import type { ChildMessage, ParentMessage, ReadingStart } from './read-ahead';

/**
 * The read ahead's listing (`./read-ahead.ts`), in a process of its own at the lowest priority once
 * its modules are loaded, every thread of it (`../helpers/priority.ts`; unless started with
 * `USUAL_PRIORITY_ARG`, as the tests of what it reads start it): it takes no core the program or the
 * engine asks for, and the policy pack, at the usual priority, answers the engine at once. It has
 * its own client, and so its own API budget, which the service's headers reconcile with the pack's
 * (`../client/pacing.ts`).
 *
 * Started by the pack's read ahead with the listings' files as descriptors from
 * {@link FIRST_LISTING_FD} on, a zone's four listings after the last zone's, it is told what to read
 * ({@link ReadingStart}) and answers as it reads: each zone's live policies, each page asked for,
 * each page written (its items, and where its lines are), each listing's end (or why it failed). A
 * listing it is told to abort asks for no next page. It ends when the pack closes the channel, or
 * ends, or ends it: once the review needs what it has not read yet, the pack reads on from where it
 * got (`./read-ahead.ts`).
 */

/** The descriptor of the first listing's file in the child (0 to 2 are the standard streams, 3 the channel). */
export const FIRST_LISTING_FD = 4;

/* eslint-disable @typescript-eslint/no-require-imports -- loaded before the priority is lowered, as said below */
const { HttpClient } = require('../client/http') as typeof http;
const { listPolicies } = require('../client/page-security') as typeof pageSecurity;
const { detectedPages } = require('./listed') as typeof listed;
const { ListingWriter } = require('./listing-file') as typeof listingFile;
/* eslint-enable @typescript-eslint/no-require-imports */

// Lowered once its modules are loaded: loaded at nice 19 on a machine whose cores are busy, they
// took the child half a minute and more, and the engine's reviews timed out (busy `npm test`).
if (!process.argv.includes(USUAL_PRIORITY_ARG)) lowerPriority();

/** Tells the pack `message`; once its channel is closed (the pack has ended), the child ends too. */
const send = (message: ChildMessage) => {
  if (!process.connected) process.exit(0);
  process.send?.(message, undefined, undefined, (error: Error | null) => {
    if (error !== null) process.exit(0);
  });
};
const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The abort of each zone's listings, by zone. */
const stops: AbortController[] = [];

function start({ settings, perPage, zones, listings }: ReadingStart): void {
  const client = new HttpClient(settings);
  zones.forEach(({ zoneId, hosts }, zone) => {
    const stop = new AbortController();
    stops.push(stop);
    send({ kind: 'asked live', zone });
    listPolicies(client, zoneId).then(
      (policies) => send({ kind: 'live', zone, policies }),
      (error: unknown) => send({ kind: 'live', zone, error: reasonOf(error) }),
    );
    listings.forEach(([kind, status], index) => {
      const listing = zone * listings.length + index;
      const pages = detectedPages(client, zoneId, kind, status, hosts, perPage, {
        asked: () => send({ kind: 'asked', listing }),
        signal: stop.signal,
      });
      void write(listing, pages, stop);
    });
  });
}

/** Writes `pages` to the file of `listing`, saying where each page's lines are, and how it ended. */
async function write(listing: number, pages: AsyncIterable<listed.ListedItem[]>, stop: AbortController) {
  const writer = new ListingWriter(FIRST_LISTING_FD + listing);
  try {
    for await (const page of pages) send({ kind: 'written', listing, items: page.length, lines: writer.append(page) });
    send({ kind: 'ended', listing });
  } catch (error) {
    // Refused, aborted, or a line that cannot be written: the zone fails, and the pack's review
    // reads for itself.
    stop.abort();
    send({ kind: 'ended', listing, error: reasonOf(error) });
  }
}

process.on('message', (message: ParentMessage) => {
  if (message.kind === 'start') start(message);
  else stops[message.zone]?.abort();
});
process.on('disconnect', () => process.exit(0));
