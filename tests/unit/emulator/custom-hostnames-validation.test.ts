import type { DnsRecord, ZoneHold } from '../../../emulator/core/world';
import {
  decideIssuance,
  ISSUANCE_BLOCK_MS,
  ISSUANCE_WINDOW_MS,
} from '../../../emulator/services/custom-hostnames/issuance';
import type { IssuanceState, StoredCustomHostname } from '../../../emulator/services/custom-hostnames/records';
import {
  caaIssuerDomain,
  dnsLookup,
  evaluateCustomHostname,
  MOVED_RETENTION_MS,
  NOT_CNAMED_ERROR,
  parseCaaRecord,
  type Evaluation,
} from '../../../emulator/services/custom-hostnames/validation';

const ZONE = 'saas.example';
const NOW = Date.UTC(2026, 0, 1);
const TOKEN = '6f1c1a52-4a8b-4a55-9d5c-2d9c1f3f0b11';

function record(hostname: string, overrides: Partial<StoredCustomHostname> = {}): StoredCustomHostname {
  return {
    id: '0123456789abcdef0123456789abcdef',
    zone_id: 'c0000000000000000000000000000001',
    hostname,
    ssl: { method: 'txt', type: 'dv', certificate_authority: '' },
    branding: false,
    ownership_verification: {
      type: 'txt',
      name: `_edgeguard-custom-hostname.${hostname.replace(/^\*\./, '')}`,
      value: TOKEN,
    },
    created_at: new Date(NOW).toISOString(),
    validated_ca: null,
    moved_at_ms: null,
    ...overrides,
  };
}

type Rec = [DnsRecord['type'], string, string];

function evaluate(stored: StoredCustomHostname, records: Rec[] = [], holds: ZoneHold[] = [], nowMs = NOW): Evaluation {
  const dns = dnsLookup([{ hostname: 'any', records: records.map(([type, name, value]) => ({ type, name, value })) }]);
  return evaluateCustomHostname({ record: stored, zoneName: ZONE, dns, holds, nowMs });
}

const txt = (hostname: string, value = TOKEN): Rec => ['TXT', `_edgeguard-custom-hostname.${hostname}`, value];
const requested = (ca: '' | 'google' | 'lets_encrypt') => ({
  ssl: { method: 'txt' as const, type: 'dv' as const, certificate_authority: ca },
});

describe('evaluateCustomHostname: ownership and CA choice of a hostname not yet validated', () => {
  const cases: Array<{
    name: string;
    stored: StoredCustomHostname;
    dns: Rec[];
    status: string;
    ca: string;
    ssl: string;
    errors: Array<string | RegExp>;
    validated?: string;
  }> = [
    {
      name: 'no DNS: pending',
      stored: record('shop.customer.com'),
      dns: [],
      status: 'pending',
      ca: 'google',
      ssl: 'pending_validation',
      errors: [NOT_CNAMED_ERROR],
    },
    {
      name: 'TXT token: active',
      stored: record('shop.customer.com'),
      dns: [txt('shop.customer.com')],
      status: 'active',
      ca: 'google',
      ssl: 'active',
      errors: [],
      validated: 'google',
    },
    {
      name: 'quoted TXT token: active',
      stored: record('shop.customer.com'),
      dns: [txt('shop.customer.com', `"${TOKEN}"`)],
      status: 'active',
      ca: 'google',
      ssl: 'active',
      errors: [],
      validated: 'google',
    },
    {
      name: 'wrong TXT value: pending',
      stored: record('shop.customer.com'),
      dns: [txt('shop.customer.com', 'other')],
      status: 'pending',
      ca: 'google',
      ssl: 'pending_validation',
      errors: [NOT_CNAMED_ERROR],
    },
    {
      name: 'TXT at the hostname itself: pending',
      stored: record('shop.customer.com'),
      dns: [['TXT', 'shop.customer.com', TOKEN]],
      status: 'pending',
      ca: 'google',
      ssl: 'pending_validation',
      errors: [NOT_CNAMED_ERROR],
    },
    {
      name: 'CNAME under the zone: active',
      stored: record('shop.customer.com'),
      dns: [['CNAME', 'shop.customer.com', 'edge.saas.example']],
      status: 'active',
      ca: 'google',
      ssl: 'active',
      errors: [],
      validated: 'google',
    },
    {
      name: 'CNAME to the zone apex, any case, trailing dot: active',
      stored: record('shop.customer.com'),
      dns: [['CNAME', 'shop.customer.com', 'SaaS.Example.']],
      status: 'active',
      ca: 'google',
      ssl: 'active',
      errors: [],
      validated: 'google',
    },
    {
      name: 'CNAME elsewhere: pending',
      stored: record('shop.customer.com'),
      dns: [['CNAME', 'shop.customer.com', 'edge.other.example']],
      status: 'pending',
      ca: 'google',
      ssl: 'pending_validation',
      errors: [NOT_CNAMED_ERROR],
    },
    {
      name: 'CNAME to a name that merely ends like the zone: pending',
      stored: record('shop.customer.com'),
      dns: [['CNAME', 'shop.customer.com', 'notsaas.example']],
      status: 'pending',
      ca: 'google',
      ssl: 'pending_validation',
      errors: [NOT_CNAMED_ERROR],
    },
    {
      name: 'wildcard validates by TXT at its base name',
      stored: record('*.customer.com'),
      dns: [txt('customer.com')],
      status: 'active',
      ca: 'google',
      ssl: 'active',
      errors: [],
      validated: 'google',
    },
    {
      name: 'default CA, CAA permits only lets_encrypt: lets_encrypt',
      stored: record('shop.customer.com'),
      dns: [txt('shop.customer.com'), ['CAA', 'shop.customer.com', '0 issue "letsencrypt.org"']],
      status: 'active',
      ca: 'lets_encrypt',
      ssl: 'active',
      errors: [],
      validated: 'lets_encrypt',
    },
    {
      name: 'default CA, CAA permits google and lets_encrypt: google',
      stored: record('shop.customer.com'),
      dns: [
        txt('shop.customer.com'),
        ['CAA', 'shop.customer.com', 'issue letsencrypt.org'],
        ['CAA', 'shop.customer.com', 'issue pki.goog'],
      ],
      status: 'active',
      ca: 'google',
      ssl: 'active',
      errors: [],
      validated: 'google',
    },
    {
      name: 'default CA, CAA permits nobody: caa_error naming both',
      stored: record('shop.customer.com'),
      dns: [txt('shop.customer.com'), ['CAA', 'shop.customer.com', '0 issue ";"']],
      status: 'caa_error',
      ca: 'google',
      ssl: 'caa_error',
      errors: [
        'CAA records for shop.customer.com permit neither google (pki.goog) nor lets_encrypt (letsencrypt.org); add 0 issue "pki.goog" or 0 issue "letsencrypt.org"',
      ],
    },
    {
      name: 'named google forbidden: caa_error',
      stored: record('shop.customer.com', requested('google')),
      dns: [txt('shop.customer.com'), ['CAA', 'shop.customer.com', '0 issue "letsencrypt.org"']],
      status: 'caa_error',
      ca: 'google',
      ssl: 'caa_error',
      errors: [
        'CAA records for shop.customer.com do not permit google (pki.goog); add 0 issue "pki.goog" or request another certificate_authority',
      ],
    },
    {
      name: 'named lets_encrypt forbidden: caa_error',
      stored: record('shop.customer.com', requested('lets_encrypt')),
      dns: [txt('shop.customer.com'), ['CAA', 'shop.customer.com', '0 issue "pki.goog"']],
      status: 'caa_error',
      ca: 'lets_encrypt',
      ssl: 'caa_error',
      errors: [/do not permit lets_encrypt \(letsencrypt\.org\); add 0 issue "letsencrypt\.org"/],
    },
    {
      name: 'named lets_encrypt permitted: lets_encrypt',
      stored: record('shop.customer.com', requested('lets_encrypt')),
      dns: [txt('shop.customer.com'), ['CAA', 'shop.customer.com', '0 issue "letsencrypt.org"']],
      status: 'active',
      ca: 'lets_encrypt',
      ssl: 'active',
      errors: [],
      validated: 'lets_encrypt',
    },
    {
      name: 'named lets_encrypt without CAA: lets_encrypt',
      stored: record('shop.customer.com', requested('lets_encrypt')),
      dns: [txt('shop.customer.com')],
      status: 'active',
      ca: 'lets_encrypt',
      ssl: 'active',
      errors: [],
      validated: 'lets_encrypt',
    },
    {
      name: 'CAA on a parent name governs',
      stored: record('a.b.customer.com', requested('google')),
      dns: [txt('a.b.customer.com'), ['CAA', 'customer.com', '0 issue "letsencrypt.org"']],
      status: 'caa_error',
      ca: 'google',
      ssl: 'caa_error',
      errors: [/^CAA records for customer\.com do not permit google/],
    },
    {
      name: 'the closest name with CAA wins over its parents',
      stored: record('a.b.customer.com', requested('google')),
      dns: [
        txt('a.b.customer.com'),
        ['CAA', 'b.customer.com', '0 issue "pki.goog"'],
        ['CAA', 'customer.com', '0 issue "letsencrypt.org"'],
      ],
      status: 'active',
      ca: 'google',
      ssl: 'active',
      errors: [],
      validated: 'google',
    },
    {
      name: 'wildcard uses issuewild when present',
      stored: record('*.customer.com'),
      dns: [
        txt('customer.com'),
        ['CAA', 'customer.com', '0 issue "pki.goog"'],
        ['CAA', 'customer.com', '0 issuewild "letsencrypt.org"'],
      ],
      status: 'active',
      ca: 'lets_encrypt',
      ssl: 'active',
      errors: [],
      validated: 'lets_encrypt',
    },
    {
      name: 'wildcard forbidden by issuewild names the issuewild record to add',
      stored: record('*.customer.com', requested('google')),
      dns: [
        txt('customer.com'),
        ['CAA', 'customer.com', '0 issue "pki.goog"'],
        ['CAA', 'customer.com', '0 issuewild ";"'],
      ],
      status: 'caa_error',
      ca: 'google',
      ssl: 'caa_error',
      errors: [/add 0 issuewild "pki\.goog"/],
    },
    {
      name: 'wildcard without issuewild falls back to issue',
      stored: record('*.customer.com'),
      dns: [txt('customer.com'), ['CAA', 'customer.com', '0 issue "letsencrypt.org"']],
      status: 'active',
      ca: 'lets_encrypt',
      ssl: 'active',
      errors: [],
      validated: 'lets_encrypt',
    },
    {
      name: 'a non-wildcard ignores issuewild',
      stored: record('shop.customer.com'),
      dns: [
        txt('shop.customer.com'),
        ['CAA', 'customer.com', '0 issue "letsencrypt.org"'],
        ['CAA', 'customer.com', '0 issuewild "pki.goog"'],
      ],
      status: 'active',
      ca: 'lets_encrypt',
      ssl: 'active',
      errors: [],
      validated: 'lets_encrypt',
    },
    {
      name: 'issuer parameters after ";" are ignored',
      stored: record('shop.customer.com'),
      dns: [
        txt('shop.customer.com'),
        ['CAA', 'shop.customer.com', '0 issue "letsencrypt.org; validationmethods=dns-01"'],
      ],
      status: 'active',
      ca: 'lets_encrypt',
      ssl: 'active',
      errors: [],
      validated: 'lets_encrypt',
    },
    {
      name: 'CAA with only other tags restricts nothing',
      stored: record('shop.customer.com'),
      dns: [txt('shop.customer.com'), ['CAA', 'shop.customer.com', '0 iodef "mailto:sec@customer.com"']],
      status: 'active',
      ca: 'google',
      ssl: 'active',
      errors: [],
      validated: 'google',
    },
    {
      name: 'a pending hostname already reports the CA CAA leaves',
      stored: record('shop.customer.com'),
      dns: [['CAA', 'shop.customer.com', '0 issue "letsencrypt.org"']],
      status: 'pending',
      ca: 'lets_encrypt',
      ssl: 'pending_validation',
      errors: [NOT_CNAMED_ERROR],
    },
  ];

  test.each(cases)('$name', ({ stored, dns, status, ca, ssl, errors, validated }) => {
    const outcome = evaluate(stored, dns);
    expect(outcome).toEqual({
      deleted: false,
      judgement: {
        status,
        certificateAuthority: ca,
        sslStatus: ssl,
        verificationErrors: errors.map((e) => (typeof e === 'string' ? e : expect.stringMatching(e))),
      },
      changes: validated === undefined ? undefined : { validated_ca: validated },
    });
  });
});

describe('evaluateCustomHostname: holds', () => {
  const hold = (zone_name: string, include_subdomains: boolean): ZoneHold => ({
    zone_id: 'c0000000000000000000000000000009',
    zone_name,
    include_subdomains,
  });
  const cases: Array<{ name: string; hostname: string; holds: ZoneHold[]; blocked: boolean }> = [
    {
      name: 'the held zone itself, without subdomains',
      hostname: 'held.com',
      holds: [hold('held.com', false)],
      blocked: true,
    },
    {
      name: 'a subdomain, hold with subdomains',
      hostname: 'shop.held.com',
      holds: [hold('held.com', true)],
      blocked: true,
    },
    {
      name: 'a wildcard under the zone, hold with subdomains',
      hostname: '*.held.com',
      holds: [hold('held.com', true)],
      blocked: true,
    },
    {
      name: 'a subdomain, hold without subdomains',
      hostname: 'shop.held.com',
      holds: [hold('held.com', false)],
      blocked: false,
    },
    {
      name: 'a name that merely ends like the zone',
      hostname: 'notheld.com',
      holds: [hold('held.com', true)],
      blocked: false,
    },
  ];

  test.each(cases)('$name', ({ hostname, holds, blocked }) => {
    const outcome = evaluate(record(hostname), [txt(hostname.replace(/^\*\./, ''))], holds);
    if (blocked) {
      expect(outcome).toEqual({
        deleted: false,
        judgement: {
          status: 'blocked',
          certificateAuthority: 'google',
          sslStatus: 'pending_validation',
          verificationErrors: [
            expect.stringMatching(/associated with a held zone \(held\.com\); the zone owner must release the hold/),
          ],
        },
        changes: undefined,
      });
    } else {
      expect(outcome).toMatchObject({ deleted: false, judgement: { status: 'active' } });
    }
  });

  test('a validated hostname under a hold is blocked, keeping its CA and its validation', () => {
    const outcome = evaluate(record('shop.held.com', { validated_ca: 'lets_encrypt' }), [], [hold('held.com', true)]);
    expect(outcome).toMatchObject({
      deleted: false,
      judgement: { status: 'blocked', certificateAuthority: 'lets_encrypt' },
      changes: undefined,
    });
  });
});

describe('evaluateCustomHostname: validated hostnames, moved and deletion', () => {
  const host = 'shop.customer.com';
  const validated = record(host, { validated_ca: 'lets_encrypt' });
  const moved = record(host, { validated_ca: 'lets_encrypt', moved_at_ms: NOW - 1000 });
  const cases: Array<{ name: string; stored: StoredCustomHostname; dns: Rec[]; nowMs?: number; expected: Evaluation }> =
    [
      {
        name: 'DNS still pointing: active with the CA that issued, CAA not consulted',
        stored: validated,
        dns: [
          ['CNAME', host, 'edge.saas.example'],
          ['CAA', host, '0 issue ";"'],
        ],
        expected: {
          deleted: false,
          judgement: {
            status: 'active',
            verificationErrors: [],
            certificateAuthority: 'lets_encrypt',
            sslStatus: 'active',
          },
          changes: undefined,
        },
      },
      {
        name: 'TXT still published: active',
        stored: validated,
        dns: [txt(host)],
        expected: {
          deleted: false,
          judgement: {
            status: 'active',
            verificationErrors: [],
            certificateAuthority: 'lets_encrypt',
            sslStatus: 'active',
          },
          changes: undefined,
        },
      },
      {
        name: 'CNAME moved elsewhere: moved, first seen now',
        stored: validated,
        dns: [['CNAME', host, 'edge.competitor.example']],
        expected: {
          deleted: false,
          judgement: {
            status: 'moved',
            verificationErrors: [NOT_CNAMED_ERROR],
            certificateAuthority: 'lets_encrypt',
            sslStatus: 'active',
          },
          changes: { moved_at_ms: NOW },
        },
      },
      {
        name: 'CNAME moved elsewhere while the TXT stays: moved',
        stored: validated,
        dns: [txt(host), ['CNAME', host, 'edge.competitor.example']],
        expected: {
          deleted: false,
          judgement: {
            status: 'moved',
            verificationErrors: [NOT_CNAMED_ERROR],
            certificateAuthority: 'lets_encrypt',
            sslStatus: 'active',
          },
          changes: { moved_at_ms: NOW },
        },
      },
      {
        name: 'all DNS removed: moved',
        stored: validated,
        dns: [],
        expected: {
          deleted: false,
          judgement: {
            status: 'moved',
            verificationErrors: [NOT_CNAMED_ERROR],
            certificateAuthority: 'lets_encrypt',
            sslStatus: 'active',
          },
          changes: { moved_at_ms: NOW },
        },
      },
      {
        name: 'already moved, DNS back: stays moved until a PATCH, moved_at kept',
        stored: moved,
        dns: [['CNAME', host, 'edge.saas.example']],
        expected: {
          deleted: false,
          judgement: {
            status: 'moved',
            verificationErrors: [NOT_CNAMED_ERROR],
            certificateAuthority: 'lets_encrypt',
            sslStatus: 'active',
          },
          changes: undefined,
        },
      },
      {
        name: 'moved for 1 ms less than 7 days: still moved',
        stored: moved,
        dns: [],
        nowMs: NOW - 1000 + MOVED_RETENTION_MS - 1,
        expected: {
          deleted: false,
          judgement: {
            status: 'moved',
            verificationErrors: [NOT_CNAMED_ERROR],
            certificateAuthority: 'lets_encrypt',
            sslStatus: 'active',
          },
          changes: undefined,
        },
      },
      {
        name: 'moved for 7 days: deleted',
        stored: moved,
        dns: [],
        nowMs: NOW - 1000 + MOVED_RETENTION_MS,
        expected: { deleted: true },
      },
      {
        name: 'moved for 7 days under a hold: deleted all the same',
        stored: record('shop.held.com', { validated_ca: 'google', moved_at_ms: NOW }),
        dns: [],
        nowMs: NOW + MOVED_RETENTION_MS,
        expected: { deleted: true },
      },
    ];

  test.each(cases)('$name', ({ stored, dns, nowMs, expected }) => {
    const holds: ZoneHold[] =
      stored.hostname === 'shop.held.com'
        ? [{ zone_id: 'c0000000000000000000000000000009', zone_name: 'held.com', include_subdomains: true }]
        : [];
    expect(evaluate(stored, dns, holds, nowMs)).toEqual(expected);
  });
});

describe('CAA record parsing', () => {
  test.each([
    ['0 issue "pki.goog"', { flags: 0, tag: 'issue', value: 'pki.goog' }],
    ['issue letsencrypt.org', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
    ['128 ISSUEWILD ";"', { flags: 128, tag: 'issuewild', value: ';' }],
    ['0 issue', { flags: 0, tag: 'issue', value: '' }],
    [
      '  0   issue   "letsencrypt.org; accounturi=x"  ',
      { flags: 0, tag: 'issue', value: 'letsencrypt.org; accounturi=x' },
    ],
  ])('%s', (text, expected) => {
    expect(parseCaaRecord(text)).toEqual(expected);
  });

  test.each(['', '300 issue "pki.goog"', '0 is-sue "pki.goog"'])('%j is not a CAA record', (text) => {
    expect(parseCaaRecord(text)).toBeUndefined();
  });

  test.each([
    ['pki.goog', 'pki.goog'],
    ['PKI.goog.', 'pki.goog'],
    ['letsencrypt.org; validationmethods=dns-01', 'letsencrypt.org'],
    [';', ''],
    ['', ''],
  ])('issuer domain of %j is %j', (value, expected) => {
    expect(caaIssuerDomain(value)).toBe(expected);
  });
});

describe('decideIssuance', () => {
  const zone = 'c0000000000000000000000000000001';
  const full = (at: number): IssuanceState => ({
    zone_id: zone,
    issued_at_ms: Array.from({ length: 15 }, (_, i) => at + i),
    blocked_until_ms: null,
  });

  test('below the limit: allowed, and the create is recorded', () => {
    expect(decideIssuance(undefined, zone, NOW)).toEqual({
      allowed: true,
      afterCreate: { zone_id: zone, issued_at_ms: [NOW], blocked_until_ms: null },
    });
  });

  test('the 16th create in the window is refused and starts a 30 s block', () => {
    const decision = decideIssuance(full(NOW - 1000), zone, NOW);
    expect(decision.allowed).toBe(false);
    if (decision.allowed) return;
    expect(decision.error.status).toBe(429);
    expect(decision.error.errors[0]?.code).toBe(971);
    expect(decision.error.headers).toEqual({ 'retry-after': '30' });
    expect(decision.blockStarted).toEqual({
      zone_id: zone,
      issued_at_ms: full(NOW - 1000).issued_at_ms,
      blocked_until_ms: NOW + ISSUANCE_BLOCK_MS,
    });
  });

  test('during a block: refused with the whole seconds left, rounded up, nothing recorded', () => {
    const state: IssuanceState = { ...full(NOW - 1000), blocked_until_ms: NOW + 20_500 };
    const decision = decideIssuance(state, zone, NOW);
    expect(decision).toMatchObject({ allowed: false, blockStarted: undefined });
    if (decision.allowed) return;
    expect(decision.error.headers).toEqual({ 'retry-after': '21' });
  });

  test('after the block but inside the window: refused again with a new block', () => {
    const state: IssuanceState = { ...full(NOW), blocked_until_ms: NOW + ISSUANCE_BLOCK_MS };
    const decision = decideIssuance(state, zone, NOW + ISSUANCE_BLOCK_MS + 1);
    expect(decision).toMatchObject({
      allowed: false,
      blockStarted: { blocked_until_ms: NOW + 2 * ISSUANCE_BLOCK_MS + 1 },
    });
  });

  test('creates older than the window are forgotten', () => {
    const decision = decideIssuance(
      { ...full(NOW), blocked_until_ms: NOW + ISSUANCE_BLOCK_MS },
      zone,
      NOW + ISSUANCE_WINDOW_MS + 13,
    );
    expect(decision).toEqual({
      allowed: true,
      afterCreate: { zone_id: zone, issued_at_ms: [NOW + 14, NOW + ISSUANCE_WINDOW_MS + 13], blocked_until_ms: null },
    });
  });
});
