import { z } from 'zod';
import { MALICIOUS_SCORE_THRESHOLD } from '../../../rules/malicious';
import { isoTime } from '../../core/clock';
import { newId, sha256Hex, stableId } from '../../core/ids';
import type { SeedSection } from '../../core/seeding';
import type { Transaction } from '../../core/store';
import { zones } from '../../core/tenancy';
import { idSchema, timestampSchema } from '../../core/validation';
import {
  connections,
  cookies,
  DETECTED_STATUSES,
  scripts,
  type ConnectionRecord,
  type CookieRecord,
  type ScriptRecord,
  type ScriptVersion,
} from './records';

/**
 * Seed sections for what page security detects (contract: "scripts", "connections", "cookies").
 * Items use the API's field names; only `zone_id` is required, and every other field is generated
 * when left out: URLs and cookie hosts on the zone's own name (cookies default to first party),
 * ids from the zone and the identifying fields (so seeding the same object again replaces it),
 * timestamps from the emulator's clock, `status: active`, and scores derived from the URL so the
 * same seed always gives the same scores. Every field given is kept as given.
 *
 * The `host` of a script or connection is the host of the page it was seen on (the vendor's "the
 * host where the script is being loaded"), which is what the lists' `hosts` filter and the review
 * go by, not the host of its own URL: left out, it comes from `first_page_url`, else the first of
 * `page_urls`, else the zone's name ({@link seenHost}).
 */

const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/** An absolute http(s) URL: what a page loads scripts from and connects to. */
const httpUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine(isHttpUrl, 'must be an absolute http(s) URL like https://cdn.example.net/app.js');

const hostSchema = z
  .string()
  .max(253, 'must be at most 253 characters')
  .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'must be a hostname like cdn.example.net');

const scoreSchema = z
  .number({ error: 'must be a whole number from 1 to 99' })
  .int('must be a whole number from 1 to 99')
  .min(1, 'must be a whole number from 1 to 99')
  .max(99, 'must be a whole number from 1 to 99');

const statusSchema = z.enum(DETECTED_STATUSES, {
  error: `must be ${DETECTED_STATUSES.map((s) => `"${s}"`).join(' or ')}`,
});

const categoriesSchema = z.array(z.string().min(1, 'must not be empty').max(100)).max(50);

const HASH_RULE = 'must be 8 to 128 lowercase hexadecimal characters';
/** Spec 2.3: a version's content hash, hexadecimal like the SHA-256 the seed generates. */
export const contentHash = z.string({ error: HASH_RULE }).regex(/^[0-9a-f]{8,128}$/, HASH_RULE);

/** Spec 2.5: `first_page_url` and `page_urls` of cookies are URLs without their scheme. */
const schemelessUrl = z
  .string()
  .min(1, 'must not be empty')
  .max(2048, 'must be at most 2048 characters')
  .refine(
    (s) => !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(s) && !/\s/.test(s),
    'must be a URL without its scheme, like example.com/checkout',
  );

/** Spec 2.3: a script's or version's scores, each optional. */
export const scoreShape = {
  js_integrity_score: scoreSchema.optional(),
  obfuscation_score: scoreSchema.optional(),
  dataflow_score: scoreSchema.optional(),
  malware_score: scoreSchema.optional(),
  cryptomining_score: scoreSchema.optional(),
  magecart_score: scoreSchema.optional(),
};

/** Spec 2.3 `versions[]`: fields left out are those of the script itself. */
const versionItem = z
  .object({ hash: contentHash.optional(), ...scoreShape, fetched_at: timestampSchema.optional() })
  .strict();

const seenShape = {
  first_seen_at: timestampSchema.optional(),
  last_seen_at: timestampSchema.optional(),
};

/** `last_seen_at` before `first_seen_at` is never what a seed author meant. */
function seenInOrder(
  item: { first_seen_at?: string | undefined; last_seen_at?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (item.first_seen_at !== undefined && item.last_seen_at !== undefined && item.last_seen_at < item.first_seen_at) {
    ctx.addIssue({
      code: 'custom',
      path: ['last_seen_at'],
      message: `must not be before first_seen_at (${item.first_seen_at})`,
    });
  }
}

/** Spec 2.3 and 2.4: the fields a script and a connection item share. */
const detectedUrlShape = {
  zone_id: idSchema,
  url: httpUrl.optional(),
  id: idSchema.optional(),
  added_at: timestampSchema.optional(),
  ...seenShape,
  host: hostSchema.optional(),
  domain_reported_malicious: z.boolean().optional(),
  url_reported_malicious: z.boolean().optional(),
  malicious_url_categories: categoriesSchema.optional(),
  first_page_url: httpUrl.optional(),
  status: statusSchema.optional(),
  url_contains_cdn_cgi_path: z.boolean().optional(),
};

const scriptItem = z
  .object({
    ...detectedUrlShape,
    hash: contentHash.optional(),
    ...scoreShape,
    fetched_at: timestampSchema.optional(),
    page_urls: z.array(httpUrl).max(1000).optional(),
    versions: z.array(versionItem).min(1, 'must hold at least one version').max(100).optional(),
  })
  .strict()
  .superRefine(seenInOrder);

const connectionItem = z
  .object({
    ...detectedUrlShape,
    malicious_domain_categories: categoriesSchema.optional(),
  })
  .strict()
  .superRefine(seenInOrder);

const cookieItem = z
  .object({
    zone_id: idSchema,
    name: z
      .string()
      .min(1, 'must not be empty')
      .max(256, 'must be at most 256 characters')
      .regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, "must be a cookie name (letters, digits and !#$%&'*+-.^_`|~)")
      .optional(),
    host: hostSchema.optional(),
    id: idSchema.optional(),
    type: z.enum(['first_party', 'third_party'], { error: 'must be "first_party" or "third_party"' }).optional(),
    domain_attribute: z
      .string()
      .regex(/^\.?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'must be a domain like example.com or .example.com')
      .optional(),
    expires_attribute: timestampSchema.optional(),
    http_only_attribute: z.boolean().optional(),
    max_age_attribute: z.number().int('must be a whole number of seconds or null').nullable().optional(),
    path_attribute: z
      .string()
      .max(1024)
      .regex(/^\/\S*$/, 'must be a path starting with /')
      .optional(),
    same_site_attribute: z.enum(['strict', 'lax', 'none'], { error: 'must be "strict", "lax" or "none"' }).optional(),
    secure_attribute: z.boolean().optional(),
    ...seenShape,
    first_page_url: schemelessUrl.optional(),
    page_urls: z.array(schemelessUrl).max(1000).optional(),
    status: statusSchema.optional(),
  })
  .strict()
  .superRefine(seenInOrder);

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The seen-at timestamps: what was given, else "now", never with last before first. */
function seenTimes(
  item: { added_at?: string | undefined; first_seen_at?: string | undefined; last_seen_at?: string | undefined },
  now: string,
) {
  const first = item.first_seen_at ?? item.added_at ?? now;
  return {
    added_at: item.added_at ?? first,
    first_seen_at: first,
    last_seen_at: item.last_seen_at ?? (first > now ? first : now),
  };
}

/**
 * Plausible scores from the malicious threshold of spec 8 (`rules/malicious.ts`) to 99, so that
 * no script is malicious unless its seed says so; one byte of the URL's SHA-256 each, so that the
 * same URL always scores the same.
 */
function derivedScores(url: string): Record<keyof typeof scoreShape, number> {
  const digest = sha256Hex(`scores\u0000${url}`);
  const byte = (index: number) =>
    MALICIOUS_SCORE_THRESHOLD +
    (Number.parseInt(digest.slice(index * 2, index * 2 + 2), 16) % (100 - MALICIOUS_SCORE_THRESHOLD));
  return {
    js_integrity_score: byte(0),
    obfuscation_score: byte(1),
    dataflow_score: byte(2),
    malware_score: byte(3),
    cryptomining_score: byte(4),
    magecart_score: byte(5),
  };
}

function containsCdnCgiPath(url: string): boolean {
  return new URL(url).pathname.startsWith('/cdn-cgi/');
}

/** The name of the item's zone, which the seed loader made sure exists or is seeded. */
function zoneName(tx: Transaction, zoneId: string): string {
  return tx.get(zones, zoneId)!.name;
}

/**
 * What names an object seeded without its identifying fields: its `id` when given, so that seeding
 * it again replaces it, else something new.
 */
function suffixOf(item: { id?: string | undefined }): string {
  return item.id ?? newId();
}

/**
 * Where a script or connection was seen: its `host` and first page as given, else each derived
 * from the other (the host of `first_page_url`, else of the first of `page_urls`, else the
 * zone's name; the first page `https://<host>/`).
 */
function seenHost(
  tx: Transaction,
  item: { zone_id: string; host?: string | undefined; first_page_url?: string | undefined },
  pageUrls?: readonly string[],
): { host: string; firstPageUrl: string } {
  const page = item.first_page_url ?? pageUrls?.[0];
  const host = item.host ?? (page !== undefined ? new URL(page).hostname : zoneName(tx, item.zone_id));
  return { host, firstPageUrl: item.first_page_url ?? page ?? `https://${host}/` };
}

/** Seed section `scripts` (spec 2.3); required: `zone_id`. */
export const scriptsSeed: SeedSection<typeof scriptItem> = {
  item: scriptItem,
  reference: 'zone_id',
  apply(tx, ctx, items) {
    const now = isoTime(ctx.clock.nowMs());
    for (const item of items) {
      const url = item.url ?? `https://${zoneName(tx, item.zone_id)}/assets/${suffixOf(item)}.js`;
      const id = item.id ?? stableId(item.zone_id, url);
      const { host, firstPageUrl } = seenHost(tx, item, item.page_urls);
      const times = seenTimes(item, now);
      const derived = derivedScores(url);
      const current: ScriptVersion = {
        hash: item.hash ?? sha256Hex(url),
        js_integrity_score: item.js_integrity_score ?? derived.js_integrity_score,
        obfuscation_score: item.obfuscation_score ?? derived.obfuscation_score,
        dataflow_score: item.dataflow_score ?? derived.dataflow_score,
        malware_score: item.malware_score ?? derived.malware_score,
        cryptomining_score: item.cryptomining_score ?? derived.cryptomining_score,
        magecart_score: item.magecart_score ?? derived.magecart_score,
        fetched_at: item.fetched_at ?? times.last_seen_at,
      };
      const record: ScriptRecord = {
        zone_id: item.zone_id,
        id,
        url,
        ...times,
        host,
        domain_reported_malicious: item.domain_reported_malicious ?? false,
        url_reported_malicious: item.url_reported_malicious ?? false,
        malicious_url_categories: item.malicious_url_categories ?? [],
        first_page_url: firstPageUrl,
        status: item.status ?? 'active',
        url_contains_cdn_cgi_path: item.url_contains_cdn_cgi_path ?? containsCdnCgiPath(url),
        ...current,
        page_urls: item.page_urls ?? [firstPageUrl],
        versions: (item.versions ?? [{}]).map((version) => ({
          hash: version.hash ?? current.hash,
          js_integrity_score: version.js_integrity_score ?? current.js_integrity_score,
          obfuscation_score: version.obfuscation_score ?? current.obfuscation_score,
          dataflow_score: version.dataflow_score ?? current.dataflow_score,
          malware_score: version.malware_score ?? current.malware_score,
          cryptomining_score: version.cryptomining_score ?? current.cryptomining_score,
          magecart_score: version.magecart_score ?? current.magecart_score,
          fetched_at: version.fetched_at ?? current.fetched_at,
        })),
      };
      tx.put(scripts, id, record);
    }
  },
};

/** Seed section `connections` (spec 2.4); required: `zone_id`. */
export const connectionsSeed: SeedSection<typeof connectionItem> = {
  item: connectionItem,
  reference: 'zone_id',
  apply(tx, ctx, items) {
    const now = isoTime(ctx.clock.nowMs());
    for (const item of items) {
      const url = item.url ?? `https://${zoneName(tx, item.zone_id)}/collect/${suffixOf(item)}`;
      const id = item.id ?? stableId(item.zone_id, url);
      const { host, firstPageUrl } = seenHost(tx, item);
      const record: ConnectionRecord = {
        zone_id: item.zone_id,
        id,
        url,
        ...seenTimes(item, now),
        host,
        domain_reported_malicious: item.domain_reported_malicious ?? false,
        malicious_domain_categories: item.malicious_domain_categories ?? [],
        url_reported_malicious: item.url_reported_malicious ?? false,
        malicious_url_categories: item.malicious_url_categories ?? [],
        first_page_url: firstPageUrl,
        status: item.status ?? 'active',
        url_contains_cdn_cgi_path: item.url_contains_cdn_cgi_path ?? containsCdnCgiPath(url),
      };
      tx.put(connections, id, record);
    }
  },
};

/** Seed section `cookies` (spec 2.5); required: `zone_id`. */
export const cookiesSeed: SeedSection<typeof cookieItem> = {
  item: cookieItem,
  reference: 'zone_id',
  apply(tx, ctx, items) {
    const nowMs = ctx.clock.nowMs();
    const now = isoTime(nowMs);
    for (const item of items) {
      const name = item.name ?? `cookie_${suffixOf(item).slice(0, 8)}`;
      const host = item.host ?? zoneName(tx, item.zone_id);
      const id = item.id ?? stableId(item.zone_id, host, name);
      const { first_seen_at, last_seen_at } = seenTimes(item, now);
      const firstPageUrl = item.first_page_url ?? `${host}/`;
      const record: CookieRecord = {
        zone_id: item.zone_id,
        id,
        type: item.type ?? 'first_party',
        name,
        host,
        domain_attribute: item.domain_attribute ?? host,
        expires_attribute: item.expires_attribute ?? isoTime(nowMs + ONE_YEAR_MS),
        http_only_attribute: item.http_only_attribute ?? true,
        max_age_attribute: item.max_age_attribute ?? null,
        path_attribute: item.path_attribute ?? '/',
        same_site_attribute: item.same_site_attribute ?? 'strict',
        secure_attribute: item.secure_attribute ?? true,
        first_seen_at,
        last_seen_at,
        first_page_url: firstPageUrl,
        page_urls: item.page_urls ?? [firstPageUrl],
        status: item.status ?? 'active',
      };
      tx.put(cookies, id, record);
    }
  },
};
