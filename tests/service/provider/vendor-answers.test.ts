import { APIResponseError } from '../../../provider/client/errors';
import {
  deleteCustomHostname,
  getCustomHostname,
  hasStatus,
  listCustomHostnames,
} from '../../../provider/client/custom-hostnames';
import { listPools } from '../../../provider/client/load-balancing';
import {
  createAlertPolicy,
  deleteAlertPolicy,
  getAlertPolicy,
  listAlertPolicies,
} from '../../../provider/client/notifications';
import {
  deletePolicy,
  getScript,
  listConnections,
  listCookies,
  listPolicies,
  listScripts,
} from '../../../provider/client/page-security';
import { envelope, readAll, withAnswerServer, type CannedAnswer, type SeenRequest } from '../../helpers/answer-server';

/**
 * Issue 42, item 2: every answer the vendor's schema (and its SDK 7.1.0's types) allows is read,
 * not refused, whichever the dialect; what no schema allows still is. Each shape is given by a
 * small server over real HTTP, since the emulator gives none of them.
 */

const ZONE = 'c0000000000000000000000000000042';
const ACCOUNT = 'a0000000000000000000000000000042';
const ID = 'd0000000000000000000000000000042';
const TIME = '2026-11-01T00:00:00.000Z';

/** Runs `body` against a server answering with `answer`, and closes it whatever happens. */

/** A script as the vendor's schema requires it and no more. */
const bareScript = (n: number) => ({
  id: n.toString(16).padStart(32, '0'),
  url: `https://cdn.example.net/${n}.js`,
  added_at: TIME,
  first_seen_at: TIME,
  last_seen_at: TIME,
  host: 'shop.example.com',
  url_contains_cdn_cgi_path: false,
});

describe('deletes: whatever the vendor answers a delete with is done', () => {
  test('a policy delete answered HTTP 204 with no body', async () => {
    await withAnswerServer(
      () => ({ status: 204 }),
      async (server) => {
        await expect(deletePolicy(server.client(), ZONE, ID)).resolves.toBeUndefined();
        expect(server.requests.map((r) => r.method)).toEqual(['DELETE']);
      },
    );
  });

  test('a custom hostname delete answered with a bare {id}, no envelope', async () => {
    await withAnswerServer(
      () => ({ body: { id: ID } }),
      async (server) => {
        await expect(deleteCustomHostname(server.client(), ZONE, ID)).resolves.toBeUndefined();
      },
    );
  });

  test('an alert policy delete answered with an envelope without result', async () => {
    await withAnswerServer(
      () => ({ body: { success: true, errors: [], messages: [] } }),
      async (server) => {
        await expect(deleteAlertPolicy(server.client(), { accountId: ACCOUNT, policyId: ID })).resolves.toBeUndefined();
      },
    );
  });

  test('still refused: a body that is not JSON, and an envelope that says success: false with a 2xx', async () => {
    await withAnswerServer(
      () => ({ body: 'deleted!' }),
      async (server) => {
        await expect(deletePolicy(server.client(), ZONE, ID)).rejects.toThrow(APIResponseError);
      },
    );
    await withAnswerServer(
      () => ({ body: { success: false, errors: [], messages: [] } }),
      async (server) => {
        await expect(deletePolicy(server.client(), ZONE, ID)).rejects.toThrow(APIResponseError);
      },
    );
  });
});

describe('CSP policies', () => {
  const policy = (id: string, action: string, enabled: unknown) => ({
    id,
    description: `policy ${id.slice(0, 4)}`,
    action,
    expression: 'http.host eq "shop.example.com"',
    enabled,
    value: "script-src 'self'",
  });

  test('enabled as a JSON boolean or a string, and an action EdgeGuard does not know, are read; the list does not fail', async () => {
    await withAnswerServer(
      () => ({
        body: envelope([
          policy('1'.repeat(32), 'allow', true),
          policy('2'.repeat(32), 'log', 'false'),
          policy('3'.repeat(32), 'add_reporting_directives', false),
        ]),
      }),
      async (server) => {
        const policies = await listPolicies(server.client(), ZONE);
        expect(policies.map((p) => [p.action, p.enabled])).toEqual([
          ['allow', 'true'],
          ['log', 'false'],
          ['add_reporting_directives', 'false'],
        ]);
      },
    );
  });

  test('still refused: a policy without an id, and a list that is not an array', async () => {
    const { id: _id, ...noId } = policy('1'.repeat(32), 'log', true);
    await withAnswerServer(
      () => ({ body: envelope([noId]) }),
      async (server) => {
        await expect(listPolicies(server.client(), ZONE)).rejects.toThrow(/result\[0\]\.id/);
      },
    );
    await withAnswerServer(
      () => ({ body: envelope({ policies: [] }) }),
      async (server) => {
        await expect(listPolicies(server.client(), ZONE)).rejects.toThrow(APIResponseError);
      },
    );
  });
});

describe('detected scripts, connections and cookies', () => {
  test('a script with null scores, hash, fetched_at and versions, no status, no first_page_url, no page_urls', async () => {
    const script = {
      ...bareScript(1),
      js_integrity_score: null,
      magecart_score: null,
      hash: null,
      fetched_at: null,
      versions: null,
    };
    await withAnswerServer(
      () => ({ body: envelope(script) }),
      async (server) => {
        const read = await getScript(server.client(), ZONE, script.id);
        expect(read.js_integrity_score).toBeUndefined();
        expect(read.hash).toBeUndefined();
        expect(read.fetched_at).toBeUndefined();
        expect(read.versions).toEqual([]);
        expect(read.page_urls).toEqual([]);
        expect(read.status).toBeUndefined();
        expect(read.first_page_url).toBeUndefined();
        expect(read.domain_reported_malicious).toBe(false);
      },
    );
  });

  test('versions with null scores and hash are kept, each as not reported', async () => {
    const script = { ...bareScript(1), versions: [{ hash: null, js_integrity_score: null, fetched_at: TIME }] };
    await withAnswerServer(
      () => ({ body: envelope(script) }),
      async (server) => {
        const read = await getScript(server.client(), ZONE, script.id);
        expect(read.versions).toHaveLength(1);
        expect(read.versions[0]!.hash).toBeUndefined();
        expect(read.versions[0]!.fetched_at).toBe(TIME);
      },
    );
  });

  test('a result_info without total_pages: paging ends on a short page', async () => {
    const scripts = [1, 2, 3, 4, 5].map(bareScript);
    const answer = (request: SeenRequest): CannedAnswer => {
      const page = Number(request.query.get('page'));
      const perPage = Number(request.query.get('per_page'));
      const items = scripts.slice((page - 1) * perPage, page * perPage);
      return { body: envelope(items, { page, per_page: perPage, count: items.length }) };
    };
    await withAnswerServer(answer, async (server) => {
      const read = await readAll(listScripts(server.client(), ZONE, {}, 2));
      expect(read.map((s) => s.url)).toEqual(scripts.map((s) => s.url));
      // Pages of 2, 2 and 1: the short third is the last.
      expect(server.requests.map((r) => r.query.get('page'))).toEqual(['1', '2', '3']);
    });
    await withAnswerServer(answer, async (server) => {
      // A multiple of the page: the empty page after the last full one ends it.
      const read = await readAll(listScripts(server.client(), ZONE, {}, 5));
      expect(read).toHaveLength(5);
      expect(server.requests.map((r) => r.query.get('page'))).toEqual(['1', '2']);
    });
  });

  test('a result_info with total_count but no total_pages ends on the count, with no request past it', async () => {
    const scripts = [1, 2, 3, 4].map(bareScript);
    await withAnswerServer(
      (request) => {
        const page = Number(request.query.get('page'));
        const items = scripts.slice((page - 1) * 2, page * 2);
        return { body: envelope(items, { page, per_page: 2, count: items.length, total_count: 4 }) };
      },
      async (server) => {
        expect(await readAll(listScripts(server.client(), ZONE, {}, 2))).toHaveLength(4);
        expect(server.requests).toHaveLength(2);
      },
    );
  });

  test('a connection without status, first_page_url or categories', async () => {
    await withAnswerServer(
      () => ({ body: envelope([bareScript(7)], { page: 1, per_page: 100, count: 1, total_count: 1, total_pages: 1 }) }),
      async (server) => {
        const [connection] = await readAll(listConnections(server.client(), ZONE, {}, 100));
        expect(connection!.malicious_domain_categories).toEqual([]);
        expect(connection!.url_reported_malicious).toBe(false);
        expect(connection!.status).toBeUndefined();
      },
    );
  });

  test('a cookie with only what the vendor requires, and a same_site EdgeGuard does not know', async () => {
    const cookie = {
      id: ID,
      first_seen_at: TIME,
      last_seen_at: TIME,
      host: 'shop.example.com',
      name: 'session',
      type: 'unknown',
      same_site_attribute: 'lax',
    };
    await withAnswerServer(
      () => ({ body: envelope([cookie], { page: 1, per_page: 100, count: 1, total_count: 1 }) }),
      async (server) => {
        const [read] = await readAll(listCookies(server.client(), ZONE, {}, 100));
        expect(read).toMatchObject({ name: 'session', type: 'unknown', same_site_attribute: 'lax', page_urls: [] });
        expect(read!.first_page_url).toBeUndefined();
        expect(read!.max_age_attribute).toBeNull();
      },
    );
  });

  test('still refused: a script without its url', async () => {
    const { url: _url, ...noUrl } = bareScript(1);
    await withAnswerServer(
      () => ({ body: envelope([noUrl], { page: 1, per_page: 100, count: 1 }) }),
      async (server) => {
        await expect(readAll(listScripts(server.client(), ZONE, {}, 100))).rejects.toThrow(/result\[0\]\.url/);
      },
    );
  });
});

describe('custom hostnames', () => {
  test('statuses EdgeGuard does not know are kept, branding absent stays absent, ssl.<vendor>_branding is read', async () => {
    const records = [
      { id: '1'.repeat(32), hostname: 'a.example.org', status: 'test_pending', ssl: { status: 'initializing' } },
      {
        id: '2'.repeat(32),
        hostname: 'b.example.org',
        status: 'active',
        ssl: { status: 'pending_issuance', method: 'email' },
      },
      { id: '3'.repeat(32), hostname: 'c.example.org', ssl: { edgeguard_branding: true } },
    ];
    await withAnswerServer(
      () => ({ body: envelope(records, { page: 1, per_page: 50, count: 3, total_count: 3 }) }),
      async (server) => {
        const read = await readAll(listCustomHostnames(server.client(), ZONE));
        expect(read.map((r) => [r.status, r.ssl.status, r.branding])).toEqual([
          ['test_pending', 'initializing', undefined],
          ['active', 'pending_issuance', undefined],
          [undefined, undefined, true],
        ]);
        expect(read[1]!.ssl.method).toBe('email');
        expect(read[2]!.verification_errors).toEqual([]);
        // Active with a certificate still being issued is not yet active.
        expect(hasStatus(read[1]!, ['active'])).toBe(false);
      },
    );
  });

  test('the top-level branding of the contract is still read; a branding that is not a boolean is refused', async () => {
    await withAnswerServer(
      () => ({ body: envelope({ id: ID, hostname: 'a.example.org', edgeguard_branding: false }) }),
      async (server) => {
        expect((await getCustomHostname(server.client(), ZONE, ID)).branding).toBe(false);
      },
    );
    await withAnswerServer(
      () => ({ body: envelope({ id: ID, hostname: 'a.example.org', edgeguard_branding: 'yes' }) }),
      async (server) => {
        await expect(getCustomHostname(server.client(), ZONE, ID)).rejects.toThrow(/edgeguard_branding/);
      },
    );
  });
});

describe('alert policies and pools', () => {
  test('a listed policy without an id is left out, the rest read with defaults for what is absent', async () => {
    await withAnswerServer(
      () => ({ body: envelope([{ name: 'no id' }, { id: ID, alert_type: 'incident_alert' }]) }),
      async (server) => {
        const policies = await listAlertPolicies(server.client(), { accountId: ACCOUNT });
        expect(policies).toEqual([
          expect.objectContaining({
            id: ID,
            alert_type: 'incident_alert',
            name: '',
            enabled: true,
            filters: {},
            mechanisms: {},
          }),
        ]);
      },
    );
  });

  test('a policy with mechanisms whose ids are absent keeps those with one', async () => {
    await withAnswerServer(
      () => ({ body: envelope({ id: ID, mechanisms: { email: [{ id: 'ops@example.com' }, {}], pagerduty: [{}] } }) }),
      async (server) => {
        const read = await getAlertPolicy(server.client(), { accountId: ACCOUNT, policyId: ID });
        expect(read.mechanisms).toEqual({ email: [{ id: 'ops@example.com' }] });
      },
    );
  });

  test("a create answered without the new policy's id fails, saying so", async () => {
    await withAnswerServer(
      () => ({ body: envelope({}) }),
      async (server) => {
        await expect(
          createAlertPolicy(server.client(), {
            accountId: ACCOUNT,
            policy: {
              name: 'n',
              description: '',
              enabled: true,
              alert_type: 'incident_alert',
              mechanisms: {},
              filters: {},
            },
          }),
        ).rejects.toThrow(/without the new policy's id/);
      },
    );
  });

  test('a pool without notification_email has none; without times it has none', async () => {
    await withAnswerServer(
      () => ({ body: envelope([{ id: ID, name: 'eu' }]) }),
      async (server) => {
        expect(await listPools(server.client(), { accountId: ACCOUNT })).toEqual([
          { id: ID, name: 'eu', notification_email: '' },
        ]);
      },
    );
  });
});
