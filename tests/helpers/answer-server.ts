import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClient } from '../../provider/client/http';
import { resolveSettings } from '../../provider/settings';

/**
 * A tiny HTTP server that gives canned answers, for the shapes of answer the vendor's schema allows
 * and the emulator does not give (a 204 delete, a bare `{id}`, nulls, a `result_info` without
 * `total_pages`, enum values the contract does not name): the client reads them over real HTTP, as
 * it would read the vendor.
 */

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  /** The path below `/client/v4/`. */
  path: string;
  query: URLSearchParams;
  body: string;
}

/** What the server answers: a status, and a body (JSON-encoded unless a string; none when absent). */
export interface CannedAnswer {
  status?: number;
  body?: unknown;
}

/** A running answer server. */
export interface AnswerServer {
  /** The base address, ending in `/client/v4`. */
  baseUrl: string;
  /** Every request served, in order. */
  requests: SeenRequest[];
  /** A client of the server with settings `explicit` beside the address and a token; it never sleeps. */
  client(explicit?: Record<string, string>): HttpClient;
  close(): Promise<void>;
}

/** Starts a server on a free loopback port; `answer` gives the answer of each request. */
export async function startAnswerServer(answer: (request: SeenRequest) => CannedAnswer): Promise<AnswerServer> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: url.pathname.replace(/^\/client\/v4\//, ''),
        query: url.searchParams,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      let canned: CannedAnswer;
      try {
        canned = answer(seen);
      } catch (error) {
        canned = { status: 500, body: { success: false, errors: [{ code: 1, message: String(error) }] } };
      }
      const status = canned.status ?? 200;
      if (canned.body === undefined) {
        res.writeHead(status);
        res.end();
        return;
      }
      const text = typeof canned.body === 'string' ? canned.body : JSON.stringify(canned.body);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/client/v4`;
  return {
    baseUrl,
    requests,
    client: (explicit = {}) =>
      new HttpClient(resolveSettings({ explicit: { baseUrl, apiToken: 'answer-token', ...explicit }, env: {} }), {
        sleep: async () => undefined,
        maxAttempts: 1,
      }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A success envelope around `result`, with `result_info` when given. */
export function envelope(result: unknown, resultInfo?: Record<string, number>): Record<string, unknown> {
  return { success: true, errors: [], messages: [], result, ...(resultInfo ? { result_info: resultInfo } : {}) };
}

/** Runs `body` against a server answering with `answer`, and closes the server whatever happens. */
export async function withAnswerServer<T>(
  answer: (request: SeenRequest) => CannedAnswer,
  body: (server: AnswerServer) => Promise<T>,
): Promise<T> {
  const server = await startAnswerServer(answer);
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

/** Every item of `items`, read to the end. */
export async function readAll<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
