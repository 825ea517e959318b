import { createHash } from 'node:crypto';
import * as ts from 'typescript';
import type { AlertPolicy } from '../../../provider/client/notifications';
import type { CustomHostname } from '../../../provider/client/custom-hostnames';
import type { PageSecurityPolicy } from '../../../provider/client/page-security';
import { stringLiteral } from '../../../provider/program/code';
import type { Live } from '../../../provider/import/live';
import { MAX_NAME, slug, uniqueNames } from '../../../provider/program/names';
import { importedProgram } from '../../../provider/program/import';
import { literalValue, prettierFormat, typeErrors } from '../../helpers/typescript';

/**
 * The program `edgeguard-import` writes, from objects as the client reads them: its exact text for
 * a small zone, then properties over a varied one: Prettier (default options) leaves it unchanged;
 * TypeScript type-checks it against the package; every value read back from the code is the
 * value read from the service (escaping); names are valid, unique and the same whatever the order
 * the service listed objects in; and what cannot be declared is left out, saying why.
 */

const ZONE = 'c0000000000000000000000000000001';
const ACCOUNT = 'a0000000000000000000000000000001';
const POOL_A = 'b0000000000000000000000000000001';
const POOL_B = 'b0000000000000000000000000000002';

/** An id as the service makes them: 32 hexadecimal characters that look random. */
const id = (n: number) => createHash('md5').update(String(n)).digest('hex');

function policy(n: number, fields: Partial<PageSecurityPolicy> = {}): PageSecurityPolicy {
  return {
    id: id(n),
    description: 'Shop scripts',
    action: 'log',
    expression: 'http.host eq "shop.example.com"',
    enabled: 'true',
    value: "script-src 'self' js.stripe.com",
    ...fields,
  };
}

function hostname(n: number, name: string, fields: Partial<CustomHostname> = {}): CustomHostname {
  return {
    id: id(0x100 + n),
    hostname: name,
    status: 'active',
    verification_errors: [],
    ssl: { method: 'txt', type: 'dv', certificate_authority: 'google', status: 'active' },
    branding: false,
    ownership_verification: { type: 'txt', name: `_edgeguard.${name}`, value: `token-${n}` },
    created_at: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

function alert(n: number, fields: Partial<AlertPolicy> = {}): AlertPolicy {
  return {
    id: id(0x200 + n),
    name: 'Pool health',
    description: '',
    enabled: true,
    alert_type: 'load_balancing_health_alert',
    mechanisms: { email: [{ id: 'noc@example.com' }] },
    filters: { pool_id: [POOL_A] },
    created: '2026-01-01T00:00:00.000Z',
    modified: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

const pageSecurity = {
  enabled: true,
  updated_at: '2026-01-01T00:00:00.000Z',
  use_vendor_reporting_endpoint: true,
  use_connection_url_path: false,
};

const SMALL: Live = {
  zone: {
    zoneId: ZONE,
    pageSecurity,
    cspPolicies: [policy(1)],
    customHostnames: [hostname(1, 'shop.customer.net')],
  },
  account: {
    accountId: ACCOUNT,
    alertPolicies: [alert(1)],
    legacyPools: [
      {
        id: POOL_B,
        name: 'eu-west',
        notification_email: 'ops@example.com',
        created_on: '2026-01-01T00:00:00.000Z',
        modified_on: '2026-01-01T00:00:00.000Z',
      },
    ],
  },
};

test('a small zone and account: the exact program', () => {
  const program = importedProgram(SMALL);
  expect(program.text).toBe(
    `// Written by edgeguard-import from zone ${ZONE} and
// account ${ACCOUNT}: one resource for each object read,
// declared as it was, with adoptId set, so that the first pulumi up takes each
// over as it is, creating and deleting nothing, and the preview after it shows
// no change. adoptId matters only when a resource is created; it can stay. The
// service address and the credentials come from the stack configuration or the
// environment, as for any EdgeGuard program.
import * as edgeguard from "pulumi-edgeguard";

const zoneId = "${ZONE}";
const accountId = "${ACCOUNT}";

// Page security of the zone. A zone has exactly one setting, which create takes
// over (it has no adoptId): it writes only when enabled differs, and a destroy
// puts back the value found.
new edgeguard.PageSecuritySetting("page-security", {
  zoneId,
  enabled: true,
});

// CSP policies of the zone: 1.
new edgeguard.CspPolicy("csp-shop-scripts", {
  adoptId: "${id(1)}",
  zoneId,
  description: "Shop scripts",
  action: "log",
  expression: 'http.host eq "shop.example.com"',
  value: "script-src 'self' js.stripe.com",
  enabled: true,
});

// Custom hostnames of the zone: 1. Each keeps its ownership token and status.
// ssl.certificateAuthority is the certificate authority in use: the service
// does not say whether it was asked for or chosen ("" would let it choose).
new edgeguard.CustomHostname("hostname-shop-customer-net", {
  adoptId: "${id(0x101)}",
  zoneId,
  hostname: "shop.customer.net",
  ssl: { method: "txt", type: "dv", certificateAuthority: "google" },
  branding: false,
});

// Load-balancing health notifications of the account: 1.
new edgeguard.HealthNotification("alert-pool-health", {
  adoptId: "${id(0x201)}",
  accountId,
  name: "Pool health",
  enabled: true,
  poolIds: ["${POOL_A}"],
  newHealth: ["Healthy", "Unhealthy"],
  eventSource: ["origin", "pool"],
  emails: ["noc@example.com"],
});

// 1 pool of the account still send health alerts to a legacy e-mail
// (notification_email), which is deprecated: the service keeps sending
// deprecation e-mails while any pool has one. EdgeGuard manages no pool, so
// this program leaves them as they are. To migrate, declare a
// HealthNotification for these pools and a PoolNotificationMigration that
// depends on it (it removes the legacy e-mails):
//   "eu-west" (${POOL_B}): ops@example.com
`,
  );
  expect(program.declared).toEqual({ PageSecuritySetting: 1, CspPolicy: 1, CustomHostname: 1, HealthNotification: 1 });
  expect(program.leftOut).toEqual([]);
  expect(program.legacyPools).toBe(1);
});

/** Values that exercise quoting, escaping and line breaking, as the service could hold them. */
const TRICKY = [
  'Checkout "strict" scripts',
  'Bob\'s "quoted" scripts\\with a backslash',
  'Line one\nline two\ttabbed \u2028 separated \u2029 and \u0007 bell',
  'x'.repeat(62),
  'y'.repeat(63),
  'Ünïcödé déscription — naïve café',
];

/** A zone and account holding a bit of everything, some of it not declarable. */
function varied(): Live {
  // `  value: "<value>",` is 80 characters for a value of 68: lengths around it, and far over.
  const prefix = "script-src 'self' https://cdn.example.com/";
  const values = [64, 66, 67, 68, 69, 70, 72, 120].map((length) => `${prefix}${'a'.repeat(length - prefix.length)}`);
  return {
    zone: {
      zoneId: ZONE,
      pageSecurity: { ...pageSecurity, enabled: false },
      cspPolicies: [
        ...TRICKY.map((description, index) => policy(10 + index, { description })),
        ...values.map((value, index) => policy(20 + index, { value, description: 'Same description' })),
        policy(40, { description: '', expression: 'http.host eq checkout.example.com', enabled: 'false' }),
        policy(41, { description: '!!!', action: 'allow' }),
      ],
      customHostnames: [
        hostname(1, 'shop.customer.net'),
        hostname(2, '*.customer.net', {
          status: 'pending',
          ssl: { method: 'http', type: 'dv', certificate_authority: 'lets_encrypt', status: 'pending_validation' },
        }),
        hostname(3, 'a-b.customer.net'),
        hostname(4, 'a.b-customer.net'),
        hostname(5, `${'long'.repeat(15)}.${'name'.repeat(15)}.customer.net`, { branding: true }),
        hostname(6, 'caa.customer.net', {
          status: 'caa_error',
          verification_errors: ['CAA records for customer.net permit lets_encrypt only'],
        }),
      ],
    },
    account: {
      accountId: ACCOUNT,
      alertPolicies: [
        alert(1, {
          description: TRICKY[1]!,
          enabled: false,
          filters: { pool_id: [POOL_B, POOL_A], new_health: ['Unhealthy'], event_source: ['pool'] },
          mechanisms: { email: [{ id: 'b@example.com' }, { id: 'a@example.com' }], webhooks: [{ id: id(0x999) }] },
        }),
        alert(2, { name: 'Firewall events', alert_type: 'firewall_events_alert', filters: {} }),
        alert(3, { name: 'All pools', filters: {} }),
        alert(4, { name: 'Regional', filters: { pool_id: [POOL_A], region: ['eu'] } }),
        alert(5, { name: TRICKY[2]! }),
        // A short key (`name`) is never broken; a list is, one item per line, past the print width.
        alert(6, { name: 'n'.repeat(100), mechanisms: { email: [{ id: `${'a'.repeat(53)}@example.com` }] } }),
        alert(7, { name: 'Wider', mechanisms: { email: [{ id: `${'a'.repeat(54)}@example.com` }] } }),
      ],
      legacyPools: [],
    },
  };
}

describe('a varied zone and account', () => {
  const program = importedProgram(varied());

  test('Prettier with its default options changes nothing', () => {
    expect(prettierFormat(program.text)).toBe(program.text);
  });

  test('the strings alone are quoted as Prettier quotes them', () => {
    const code = [...TRICKY, '', "'", '"', `"'"`, '\\"', "\\'", "it's"]
      .map((text, index) => `const s${index} = ${stringLiteral(text)};\n`)
      .join('');
    expect(prettierFormat(code)).toBe(code);
  });

  test('every value read back from the code is the value the service holds', () => {
    const source = ts.createSourceFile('index.ts', program.text, ts.ScriptTarget.ES2022, true);
    const declarations: Array<{ type: string; name: string; args: Record<string, unknown> }> = [];
    for (const statement of source.statements) {
      if (!ts.isExpressionStatement(statement) || !ts.isNewExpression(statement.expression)) continue;
      const [name, args] = statement.expression.arguments!;
      declarations.push({
        type: statement.expression.expression.getText(source),
        name: literalValue(name!) as string,
        args: literalValue(args!) as Record<string, unknown>,
      });
    }
    // One statement per declared resource: no comment was ended early by text from the service.
    expect(declarations).toHaveLength(Object.values(program.declared).reduce((a, b) => a + b, 0));
    const byAdoptId = new Map(declarations.map((d) => [d.args.adoptId, d]));
    for (const [index, description] of TRICKY.entries()) {
      expect(byAdoptId.get(id(10 + index))?.args.description).toBe(description);
    }
    expect(byAdoptId.get(id(0x201))?.args).toEqual({
      adoptId: id(0x201),
      accountId: '<accountId>',
      name: 'Pool health',
      description: TRICKY[1],
      enabled: false,
      poolIds: [POOL_A, POOL_B],
      newHealth: ['Unhealthy'],
      eventSource: ['pool'],
      emails: ['a@example.com', 'b@example.com'],
      webhookIds: [id(0x999)],
    });
    expect(byAdoptId.get(id(0x205))?.args.name).toBe(TRICKY[2]);
    expect(byAdoptId.get(id(0x206))?.args.name).toBe('n'.repeat(100));
    expect(byAdoptId.get(id(0x102))?.args).toEqual({
      adoptId: id(0x102),
      zoneId: '<zoneId>',
      hostname: '*.customer.net',
      ssl: { method: 'http', type: 'dv', certificateAuthority: 'lets_encrypt' },
      branding: false,
    });
    expect(byAdoptId.get(id(40))?.args).toMatchObject({
      description: '',
      expression: 'http.host eq checkout.example.com',
      enabled: false,
    });
    expect(declarations.find((d) => d.type === 'edgeguard.PageSecuritySetting')?.args).toEqual({
      zoneId: '<zoneId>',
      enabled: false,
    });
  });

  test('it type-checks against the package', () => {
    expect(typeErrors(program.text, 'import-program')).toEqual([]);
  }, 120_000);

  test('what cannot be declared is left out, saying why, and counted', () => {
    expect(program.leftOut).toEqual([
      {
        what: `custom hostname ${id(0x106)} ("caa.customer.net")`,
        reasons: [
          'its status is caa_error, so adopting it fails that step of pulumi up (it is recorded, and the next pulumi up restarts validation): ' +
            "the domain's CAA records do not permit the certificate authority in use, google. " +
            'Add a CAA record 0 issue "pki.goog" to the domain that holds the CAA records of caa.customer.net ' +
            '(or set ssl.certificateAuthority to a certificate authority those records permit), then run pulumi up again: the update restarts validation. ' +
            'The service reports: "CAA records for customer.net permit lets_encrypt only"',
        ],
      },
      {
        what: `notification policy ${id(0x203)} ("All pools")`,
        reasons: ['poolIds must name at least one pool: the notification fires for the pools listed here'],
      },
      {
        what: `notification policy ${id(0x202)} ("Firewall events")`,
        reasons: [
          'it is a policy of alert type firewall_events_alert, and a HealthNotification is one of load_balancing_health_alert',
        ],
      },
      {
        what: `notification policy ${id(0x204)} ("Regional")`,
        reasons: [
          'it has filters a HealthNotification does not declare (region), which adopting would remove; ' +
            'change the policy elsewhere, or leave adoptId out to create a new one',
        ],
      },
    ]);
    expect(program.declared).toEqual({
      PageSecuritySetting: 1,
      CspPolicy: 16,
      CustomHostname: 5,
      HealthNotification: 4,
    });
    expect(program.text).toContain(`// Left out: notification policy ${id(0x202)} ("Firewall\n// events")`);
    // A left-out object that has a declaration shows it, commented out; one of another kind does not.
    expect(program.text).toContain(`//   adoptId: "${id(0x106)}",`);
    expect(program.text).toContain(`//   adoptId: "${id(0x203)}",`);
    expect(program.text).not.toContain(`adoptId: "${id(0x202)}"`);
  });

  test('names are valid, unique within a kind, and the same whatever order the objects come in', () => {
    const reversed = varied();
    reversed.zone.cspPolicies.reverse();
    reversed.zone.customHostnames.reverse();
    reversed.account!.alertPolicies.reverse();
    expect(importedProgram(reversed).text).toBe(program.text);
    const names = [...program.text.matchAll(/^(?:\/\/ )?new edgeguard\.(\w+)\("([^"]*)"/gm)].map(
      (m) => `${m[1]}/${m[2]}`,
    );
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name.split('/')[1]).toMatch(new RegExp(`^[a-z0-9-]{1,${MAX_NAME}}$`));
    expect(names).toEqual(
      expect.arrayContaining([
        'CspPolicy/csp-checkout-strict-scripts',
        'CspPolicy/csp-checkout-example-com',
        'CspPolicy/csp-policy',
        `CspPolicy/csp-same-description-${id(20).slice(0, 8)}`,
        'CustomHostname/hostname-wildcard-customer-net',
        'HealthNotification/alert-pool-health',
      ]),
    );
  });
});

describe('names', () => {
  test('slug: lower-case words joined by hyphens, cut at a word boundary', () => {
    expect(slug('Scripts allowed on the shop', 40)).toBe('scripts-allowed-on-the-shop');
    expect(slug('Scripts allowed on the shop', 20)).toBe('scripts-allowed-on');
    expect(slug('Ünïcödé café', 40)).toBe('unicode-cafe');
    expect(slug('x'.repeat(50), 10)).toBe('x'.repeat(10));
    expect(slug('!!!', 10)).toBe('');
  });

  test('objects that would share a name get as much of their id as makes every name unique', () => {
    expect(
      uniqueNames('csp', 'policy', [
        { id: 'aaaaaaaa11', text: 'Shop' },
        { id: 'aaaaaaaa22', text: 'Shop' },
        { id: 'bbbbbbbb00', text: 'Other' },
        { id: 'cccccccc00', text: '' },
      ]),
    ).toEqual(
      new Map([
        ['aaaaaaaa11', 'csp-shop-aaaaaaaa1'],
        ['aaaaaaaa22', 'csp-shop-aaaaaaaa2'],
        ['bbbbbbbb00', 'csp-other'],
        ['cccccccc00', 'csp-policy'],
      ]),
    );
  });

  test('ids that differ only at the end leave no room for the text: the kind and the whole id', () => {
    const names = uniqueNames('hostname', 'custom', [
      { id: `${'d'.repeat(31)}1`, text: 'a-b.customer.net' },
      { id: `${'d'.repeat(31)}2`, text: 'a.b-customer.net' },
    ]);
    expect([...names.values()]).toEqual([`hostname-${'d'.repeat(31)}1`, `hostname-${'d'.repeat(31)}2`]);
    expect(Math.max(...[...names.values()].map((name) => name.length))).toBe(MAX_NAME);
  });
});

describe('values EdgeGuard does not know (issue 42)', () => {
  const live: Live = {
    zone: {
      zoneId: ZONE,
      pageSecurity,
      cspPolicies: [policy(1), policy(2, { description: 'Reporting', action: 'add_reporting_directives' })],
      customHostnames: [hostname(2, 'new.customer.net', { status: 'test_pending', ssl: { status: 'initializing' } })],
    },
  };
  const program = importedProgram(live);

  test('a policy whose action is not one a CspPolicy declares is left out, naming the action and why', () => {
    const left = program.leftOut.find((entry) => entry.what.startsWith(`CSP policy ${id(2)}`));
    expect(left?.reasons).toEqual([
      'action got "add_reporting_directives"; it must be: "log" (report the scripts the value does not allow) or "allow" (block them)',
    ]);
    expect(left?.reasons.join('; ')).toContain('add_reporting_directives');
    expect(program.declared.CspPolicy).toBe(1);
    // Shown commented out, with the action as the service holds it.
    expect(program.text).toContain('//   action: "add_reporting_directives",');
  });

  test('a hostname whose statuses EdgeGuard does not know is declared as it is', () => {
    expect(program.declared.CustomHostname).toBe(1);
    expect(program.text).toContain(`adoptId: "${id(0x102)}"`);
  });
});
