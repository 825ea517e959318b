import {
  createCustomHostname,
  editCustomHostname,
  listCustomHostnames,
} from '../../../provider/client/custom-hostnames';
import { bulkEditPools } from '../../../provider/client/load-balancing';
import {
  createPolicy,
  deletePolicy,
  getSettings,
  listCookies,
  listScripts,
  updatePolicy,
} from '../../../provider/client/page-security';
import { EdgeGuardError } from '../../../provider/client/errors';
import { migrate } from '../../../provider/runtime/pool-notification-migration';
import { reviewPerPage } from '../../../provider/impact/model';
import { envelope, readAll, withAnswerServer, type SeenRequest } from '../../helpers/answer-server';

/**
 * Issue 42, item 1: in the `vendor` dialect the client sends what the vendor's API declares (its
 * OpenAPI schema, SDK 7.1.0 taken as newer): its paths, `enabled` as a JSON boolean, branding as
 * `ssl.cloudflare_branding`, no empty certificate authority, page sizes within its bounds, only the
 * parameters each operation declares, one bulk PATCH for all pools; and in `spec`, what it always
 * sent. A small server records each request (the emulator speaks the vendor's dialect on another
 * branch).
 */

const ZONE = 'c0000000000000000000000000000042';
const ACCOUNT = 'a0000000000000000000000000000042';
const ID = 'd0000000000000000000000000000042';
const TIME = '2026-11-01T00:00:00.000Z';
const VENDOR = { dialect: 'vendor' };

/** The query parameters each list declares at the vendor (SDK 7.1.0 `*ListParams`, path params left out). */
const DECLARED = {
  scripts: [
    'direction',
    'exclude_cdn_cgi',
    'exclude_duplicates',
    'exclude_urls',
    'export',
    'hosts',
    'order_by',
    'page',
    'page_url',
    'per_page',
    'prioritize_malicious',
    'status',
    'urls',
  ],
  cookies: [
    'direction',
    'domain',
    'export',
    'hosts',
    'http_only',
    'name',
    'order_by',
    'page',
    'page_url',
    'path',
    'per_page',
    'same_site',
    'secure',
    'type',
  ],
  customHostnames: [
    'id',
    'certificate_authority',
    'custom_origin_server',
    'direction',
    'hostname.exact',
    'hostname.contain',
    'hostname.startsWith',
    'hostname_status',
    'order',
    'ssl',
    'ssl_status',
    'wildcard',
    'page',
    'per_page',
  ],
};

const emptyPage = () => ({ body: envelope([], { page: 1, per_page: 100, count: 0, total_count: 0, total_pages: 0 }) });
const undeclared = (request: SeenRequest, declared: readonly string[]) =>
  [...request.query.keys()].filter((key) => !declared.includes(key));

const policyParams = {
  description: 'Checkout',
  action: 'log' as const,
  expression: 'http.host eq "shop.example.com"',
  enabled: 'true' as const,
  value: "script-src 'self'",
};
const policyAnswer = { id: ID, ...policyParams, enabled: true };

describe('page security', () => {
  test('vendor: the page_shield paths, enabled as a JSON boolean, only the declared body fields', async () => {
    await withAnswerServer(
      (request) => {
        if (request.method === 'DELETE') return { status: 204 };
        if (request.path.endsWith('/page_shield'))
          return {
            body: envelope({
              enabled: true,
              updated_at: TIME,
              use_cloudflare_reporting_endpoint: true,
              use_connection_url_path: false,
            }),
          };
        return { body: envelope(policyAnswer) };
      },
      async (server) => {
        const http = server.client(VENDOR);
        // The vendor token defaults to the vendor's own name in this dialect.
        expect(http.settings.vendor).toBe('cloudflare');
        expect((await getSettings(http, ZONE)).use_vendor_reporting_endpoint).toBe(true);
        await createPolicy(http, ZONE, policyParams);
        await updatePolicy(http, ZONE, ID, { ...policyParams, enabled: 'false' });
        await deletePolicy(http, ZONE, ID);
        expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
          `GET zones/${ZONE}/page_shield`,
          `POST zones/${ZONE}/page_shield/policies`,
          `PUT zones/${ZONE}/page_shield/policies/${ID}`,
          `DELETE zones/${ZONE}/page_shield/policies/${ID}`,
        ]);
        expect(JSON.parse(server.requests[1]!.body)).toEqual({ ...policyParams, enabled: true });
        expect(JSON.parse(server.requests[2]!.body)).toEqual({ ...policyParams, enabled: false });
      },
    );
  });

  test('spec: the page_security paths and enabled as the string, as always', async () => {
    await withAnswerServer(
      () => ({ body: envelope({ ...policyAnswer, enabled: 'true' }) }),
      async (server) => {
        const http = server.client();
        expect(http.settings.vendor).toBe('edgeguard');
        await createPolicy(http, ZONE, policyParams);
        expect(server.requests[0]!.path).toBe(`zones/${ZONE}/page_security/policies`);
        expect(JSON.parse(server.requests[0]!.body)).toEqual(policyParams);
      },
    );
  });

  test('vendor: a list asks for at most 100 a page, and the review pages by 100', async () => {
    expect(reviewPerPage('vendor')).toBe(100);
    expect(reviewPerPage('spec')).toBe(1000);
    await withAnswerServer(emptyPage, async (server) => {
      await readAll(
        listScripts(server.client(VENDOR), ZONE, { status: 'active', pageUrl: 'shop.example.com/pay*' }, 1000),
      );
      const [request] = server.requests;
      expect(request!.query.get('per_page')).toBe('100');
      expect(undeclared(request!, DECLARED.scripts)).toEqual([]);
    });
    await withAnswerServer(emptyPage, async (server) => {
      await readAll(listScripts(server.client(), ZONE, {}, 1000));
      expect(server.requests[0]!.query.get('per_page')).toBe('1000');
    });
  });

  test('vendor: a page_url or hosts pattern with * inside it is refused before anything is sent', async () => {
    await withAnswerServer(emptyPage, async (server) => {
      await expect(
        readAll(listScripts(server.client(VENDOR), ZONE, { pageUrl: 'shop.example.com:*/pay' }, 100)),
      ).rejects.toThrow(/page_url pattern "shop.example.com:\*\/pay" has a \* inside it/);
      expect(server.requests).toHaveLength(0);
      // At either end it is sent.
      await readAll(
        listScripts(server.client(VENDOR), ZONE, { pageUrl: ['*/checkout', 'shop.example.com/pay/*'] }, 100),
      );
      expect(server.requests[0]!.query.get('page_url')).toBe('*/checkout,shop.example.com/pay/*');
    });
  });

  test('vendor: the cookie list sends only what it declares; a status other than active is refused, saying why', async () => {
    await withAnswerServer(emptyPage, async (server) => {
      const http = server.client(VENDOR);
      await readAll(listCookies(http, ZONE, { status: 'active', hosts: ['shop.example.com'] }, 100));
      expect(undeclared(server.requests[0]!, DECLARED.cookies)).toEqual([]);
      expect(server.requests[0]!.query.get('hosts')).toBe('shop.example.com');
      await expect(readAll(listCookies(http, ZONE, { status: 'infrequent' }, 100))).rejects.toThrow(
        /the vendor's cookie list has no status filter/,
      );
      expect(server.requests).toHaveLength(1);
    });
    await withAnswerServer(emptyPage, async (server) => {
      await readAll(listCookies(server.client(), ZONE, { status: 'infrequent' }, 100));
      expect(server.requests[0]!.query.get('status')).toBe('infrequent');
    });
  });
});

describe('custom hostnames', () => {
  const record = { id: ID, hostname: 'shop.customer.net', status: 'pending', ssl: { status: 'initializing' } };

  test('vendor: branding under ssl as cloudflare_branding, no empty certificate authority, hostname.exact, 5 to 50 a page', async () => {
    await withAnswerServer(
      (request) =>
        request.method === 'GET'
          ? { body: envelope([record], { page: 1, per_page: 50, count: 1, total_count: 1 }) }
          : { body: envelope(record) },
      async (server) => {
        const http = server.client(VENDOR);
        await createCustomHostname(http, ZONE, {
          hostname: 'shop.customer.net',
          ssl: { method: 'txt', type: 'dv', certificate_authority: '' },
          branding: true,
        });
        await editCustomHostname(http, ZONE, ID, { ssl: { method: 'txt', type: 'dv', certificate_authority: '' } });
        await readAll(listCustomHostnames(http, ZONE, { hostname: 'shop.customer.net' }, 1000));
        await readAll(listCustomHostnames(http, ZONE, {}, 1));
        const [create, edit, list, small] = server.requests;
        expect(JSON.parse(create!.body)).toEqual({
          hostname: 'shop.customer.net',
          ssl: { method: 'txt', type: 'dv', cloudflare_branding: true },
        });
        expect(JSON.parse(edit!.body)).toEqual({ ssl: { method: 'txt', type: 'dv' } });
        expect(list!.query.get('hostname.exact')).toBe('shop.customer.net');
        expect(list!.query.get('per_page')).toBe('50');
        expect(undeclared(list!, DECLARED.customHostnames)).toEqual([]);
        expect(small!.query.get('per_page')).toBe('5');
      },
    );
  });

  test('vendor: a named certificate authority is sent', async () => {
    await withAnswerServer(
      () => ({ body: envelope(record) }),
      async (server) => {
        await createCustomHostname(server.client(VENDOR), ZONE, {
          hostname: 'shop.customer.net',
          ssl: { method: 'txt', type: 'dv', certificate_authority: 'lets_encrypt' },
        });
        expect(JSON.parse(server.requests[0]!.body).ssl).toEqual({
          method: 'txt',
          type: 'dv',
          certificate_authority: 'lets_encrypt',
          cloudflare_branding: false,
        });
      },
    );
  });

  test('spec: the top-level branding, the empty certificate authority and hostname, as always', async () => {
    await withAnswerServer(
      (request) =>
        request.method === 'GET'
          ? { body: envelope([], { page: 1, per_page: 50, count: 0, total_count: 0, total_pages: 0 }) }
          : { body: envelope({ ...record, edgeguard_branding: false }) },
      async (server) => {
        const http = server.client();
        await createCustomHostname(http, ZONE, {
          hostname: 'shop.customer.net',
          ssl: { method: 'txt', type: 'dv', certificate_authority: '' },
        });
        await readAll(listCustomHostnames(http, ZONE, { hostname: 'shop.customer.net' }));
        expect(JSON.parse(server.requests[0]!.body)).toEqual({
          hostname: 'shop.customer.net',
          ssl: { method: 'txt', type: 'dv', certificate_authority: '' },
          edgeguard_branding: false,
        });
        expect(server.requests[1]!.query.get('hostname')).toBe('shop.customer.net');
      },
    );
  });
});

describe('pools', () => {
  const pools = (emails: string[]) =>
    emails.map((email, i) => ({ id: `${i}`.padStart(32, 'b'), name: `pool-${i}`, notification_email: email }));

  test('vendor: the migration sends one bulk PATCH for every pool, with no paging', async () => {
    let cleared = false;
    await withAnswerServer(
      (request) => {
        if (request.method === 'PATCH') {
          cleared = true;
          return { body: envelope(pools(['', '', ''])) };
        }
        return { body: envelope(pools(cleared ? ['', '', ''] : ['a@example.com', '', 'c@example.com'])) };
      },
      async (server) => {
        const run = await migrate(server.client(VENDOR), { accountId: ACCOUNT, perPage: 1, maxRounds: 3 });
        expect(run.poolsCleared).toBe(2);
        const patches = server.requests.filter((r) => r.method === 'PATCH');
        expect(patches).toHaveLength(1);
        expect([...patches[0]!.query.keys()]).toEqual([]);
        expect(JSON.parse(patches[0]!.body)).toEqual({ notification_email: '' });
      },
    );
  });

  test('vendor: paging, or setting an address, is refused before anything is sent', async () => {
    await withAnswerServer(
      () => ({ body: envelope([]) }),
      async (server) => {
        const http = server.client(VENDOR);
        await expect(
          bulkEditPools(http, { accountId: ACCOUNT, notificationEmail: '', page: 1, perPage: 25 }),
        ).rejects.toThrow(EdgeGuardError);
        await expect(bulkEditPools(http, { accountId: ACCOUNT, notificationEmail: 'a@example.com' })).rejects.toThrow(
          /can only remove/,
        );
        expect(server.requests).toHaveLength(0);
      },
    );
  });
});
