import { meaningOf, type ResourceChange } from '../../../provider/review/meaning';

/** The changes in meaning the review report shows in place of whole strings (issue 9, item 3). */

const urn = (type: string, name: string) => `urn:pulumi:dev::shop::pulumi-nodejs:dynamic/edgeguard:${type}::${name}`;
const token = (type: string) => `pulumi-nodejs:dynamic/edgeguard:${type}`;

function change(type: string, kind: ResourceChange['kind'], olds?: object, news?: object): ResourceChange {
  return {
    urn: urn(type, 'r'),
    type: token(type),
    kind,
    ...(olds ? { olds: olds as Record<string, unknown> } : {}),
    ...(news ? { news: news as Record<string, unknown> } : {}),
  };
}

const policy = {
  zoneId: 'd2b694e372a24c7496bc0106d77a1c05',
  description: 'Checkout',
  action: 'allow',
  expression: 'http.host eq "checkout.example.com"',
  value: "script-src 'self' js.stripe.com",
  enabled: true,
  __provider: 'exports.handler = ...',
};

describe('CspPolicy', () => {
  test('sources added and removed, per directive, in place of the whole value', () => {
    expect(
      meaningOf(
        change('CspPolicy', 'update', policy, {
          ...policy,
          value: "script-src 'self' https://js.stripe.com/v3/; img-src data:",
        }),
      ),
    ).toEqual({
      name: 'r',
      resource: 'CspPolicy',
      kind: 'update',
      changes: [
        'sources added: img-src data:, script-src https://js.stripe.com/v3/',
        'sources removed: script-src js.stripe.com',
      ],
    });
  });

  test('upgrade-insecure-requests, which takes no sources, shows by its name', () => {
    const upgraded = { ...policy, value: `${policy.value}; upgrade-insecure-requests` };
    expect(meaningOf(change('CspPolicy', 'update', policy, upgraded)).changes).toEqual([
      'sources added: upgrade-insecure-requests',
    ]);
    expect(meaningOf(change('CspPolicy', 'update', upgraded, policy)).changes).toEqual([
      'sources removed: upgrade-insecure-requests',
    ]);
  });

  test("the expression's host, the action and the state", () => {
    expect(
      meaningOf(
        change('CspPolicy', 'update', policy, {
          ...policy,
          expression: 'http.host eq www.example.com',
          action: 'log',
          enabled: false,
        }),
      ).changes,
    ).toEqual(['host: checkout.example.com -> www.example.com', 'action: allow -> log', 'disabled']);
  });

  test('reordering sources and rewriting the expression is no change in meaning', () => {
    expect(
      meaningOf(
        change('CspPolicy', 'update', policy, {
          ...policy,
          expression: 'http.host eq   "CHECKOUT.example.com"',
          value: "script-src  js.stripe.com 'self'",
        }),
      ).changes,
    ).toEqual(['no change in meaning (only its form)']);
  });

  test('a created policy: its action, host and sources', () => {
    expect(meaningOf(change('CspPolicy', 'create', undefined, policy)).changes).toEqual([
      'allow on checkout.example.com',
      "sources: script-src 'self', script-src js.stripe.com",
    ]);
  });
});

describe('HealthNotification', () => {
  const notification = {
    accountId: 'd1e8787dabb2917b86210399bcd65e39',
    name: 'Pool health',
    poolIds: ['a'.repeat(32), 'b'.repeat(32)],
    newHealth: ['Unhealthy', 'Healthy'],
    eventSource: ['pool', 'origin'],
    emails: ['noc@example.com'],
  };

  test('pools and filters added or removed, as sets', () => {
    expect(
      meaningOf(
        change('HealthNotification', 'update', notification, {
          ...notification,
          poolIds: ['b'.repeat(32), 'c'.repeat(32)],
          newHealth: ['Healthy', 'Unhealthy'],
          eventSource: ['pool'],
        }),
      ).changes,
    ).toEqual([`pools: added ${'c'.repeat(32)}; removed ${'a'.repeat(32)}`, 'event source filter: removed origin']);
  });
});

describe('CustomHostname', () => {
  test('a hostname that changes, and the replacement', () => {
    const hostname = { zoneId: policy.zoneId, hostname: 'shop.customer-one.example', ssl: { method: 'txt' } };
    expect(
      meaningOf(change('CustomHostname', 'replace', hostname, { ...hostname, hostname: 'shop.customer-two.example' })),
    ).toEqual({
      name: 'r',
      resource: 'CustomHostname',
      kind: 'replace',
      changes: ['hostname: shop.customer-one.example -> shop.customer-two.example'],
    });
  });
});

describe('anything else', () => {
  test('the properties that change, named', () => {
    expect(
      meaningOf({
        urn: 'urn:pulumi:dev::shop::command:local:Command::publish-txt',
        type: 'command:local:Command',
        kind: 'update',
        olds: { create: 'echo a', dir: '.' },
        news: { create: 'echo b', dir: '.' },
      }),
    ).toEqual({
      name: 'publish-txt',
      resource: 'command:local:Command',
      kind: 'update',
      changes: ['create: echo a -> echo b'],
    });
  });

  test('a delete', () => {
    expect(meaningOf(change('PageSecuritySetting', 'delete', { enabled: true })).changes).toEqual(['deleted']);
  });
});

describe('ScriptInventory', () => {
  const CARD = 'https://js.pay.example/v3/card.js';
  const OWN = 'https://checkout.example.com/static/js/';
  const [V1, V2] = ['a1', 'b2'].map((two) => two.repeat(32)) as [string, string];
  const inventory = {
    zoneId: 'd2b694e372a24c7496bc0106d77a1c05',
    pages: ['checkout.example.com/pay'],
    scripts: [
      { url: CARD, justification: 'Card form', hash: V1 },
      { prefix: OWN, justification: 'Our code', owner: 'web' },
    ],
  };

  test('a created inventory: its pages and entries, how many pinned', () => {
    expect(meaningOf(change('ScriptInventory', 'create', undefined, inventory)).changes).toEqual([
      'pages: checkout.example.com/pay',
      `2 entries (1 pinned): ${CARD}, ${OWN}`,
    ]);
  });

  test('entries added, removed and re-pinned, a justification and an owner rewritten, a page added', () => {
    const news = {
      ...inventory,
      pages: ['checkout.example.com/pay', 'checkout.example.com/Account'],
      scripts: [
        { url: CARD, justification: 'Card form of the processor', hash: V2 },
        { url: 'https://cdn.new.example/widget.js', justification: 'Address autocomplete' },
      ],
    };
    expect(meaningOf(change('ScriptInventory', 'update', inventory, news)).changes).toEqual([
      'pages: added checkout.example.com/Account',
      'entries added: https://cdn.new.example/widget.js',
      `entries removed: ${OWN}`,
      `re-pinned: ${CARD} (${V1} -> ${V2})`,
      `justification changed: ${CARD}`,
    ]);
    const owner = { ...inventory, scripts: [inventory.scripts[0]!, { ...inventory.scripts[1]!, owner: 'checkout' }] };
    expect(meaningOf(change('ScriptInventory', 'update', inventory, owner)).changes).toEqual([
      `owner changed: ${OWN} (web -> checkout)`,
    ]);
  });

  test("a refresh's detected: the scripts whose integrity changed, newly detected, gone, seen on other pages", () => {
    const page = 'https://checkout.example.com/pay';
    type Detected = { url: string; id: string; hash: string; entry?: string; integrity: string; pages: string[] };
    const detected = (hash: string, integrity: string, extra: Detected[] = []): Detected[] => [
      { url: CARD, id: 'card', hash, entry: CARD, integrity, pages: [page] },
      { url: `${OWN}app.js`, id: 'app', hash: V1, entry: OWN, integrity: 'unpinned', pages: [page] },
      ...extra,
    ];
    const before = { ...inventory, cspSources: `${CARD} ${OWN}`, detected: detected(V1, 'unchanged') };
    const after = {
      ...before,
      detected: [
        ...detected(V2, 'changed', [
          { url: 'https://cdn.new.example/w.js', id: 'w', hash: V1, integrity: 'unauthorized', pages: [page] },
        ]).map((script) => (script.id === 'app' ? { ...script, hash: V2, pages: [page, `${page}/confirm`] } : script)),
      ],
    };
    expect(meaningOf(change('ScriptInventory', 'update', before, after)).changes).toEqual([
      `integrity changed: ${CARD}: unchanged -> changed (hash ${V1} -> ${V2})`,
      `live hash changed: ${OWN}app.js: ${V1} -> ${V2}`,
      `pages of ${OWN}app.js: added ${page}/confirm`,
      'newly detected: https://cdn.new.example/w.js (unauthorized)',
    ]);
    const gone = { ...before, detected: detected(V1, 'unchanged').slice(1) };
    expect(meaningOf(change('ScriptInventory', 'update', before, gone)).changes).toEqual([
      `no longer detected: ${CARD}`,
    ]);
  });
});
