import { Collection } from './store';

/**
 * The simulated world outside the vendor API, set through the control API: public DNS, zone
 * holds and the clock's offset. Services read it (custom hostnames validate against the DNS and
 * the holds); only the control API writes it.
 */

/** A DNS record published for validation (contract: TXT ownership, CNAME to the zone, CAA). */
export interface DnsRecord {
  type: 'TXT' | 'CNAME' | 'CAA';
  /** Owner name, lowercase, no trailing dot (defaults to the hostname it was published for). */
  name: string;
  value: string;
}

/** The records published in one `POST /__emulator/dns` call, replacing the earlier ones. */
export interface DnsEntry {
  hostname: string;
  records: DnsRecord[];
}

/** A zone hold (spec 3): with `include_subdomains`, hostnames under the zone are blocked too. */
export interface ZoneHold {
  zone_id: string;
  zone_name: string;
  include_subdomains: boolean;
}

export const dnsRecords = new Collection<DnsEntry>('dns');
export const zoneHolds = new Collection<ZoneHold>('zone_holds');
/** The clock offset lives in the state, so "now" survives a restart. */
export const clockState = new Collection<{ offset_ms: number }>('meta');
