/**
 * The local server of the browser truth: plain HTTP and TLS on the same ports, pages with the
 * policy headers of a case group, and every other URL answered (a small script with CORS headers
 * for `<script src>` and `fetch`, a completed handshake for WebSocket upgrades), each request with
 * a case id logged so the harness knows which loads reached it.
 */

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';

/** The query parameter that carries a case id on every loaded URL (CSP ignores the query). */
export const CASE_PARAMETER = 'case';

/** The query parameter that picks the policies of a served page. */
export const PAGE_PARAMETER = 'page';

/** The ports the server listens on, each answering both plain HTTP and TLS. */
export const SERVER_PORTS = [80, 443, 8080, 8443] as const;

/** What a served page sends: one `Content-Security-Policy` header per enforced policy, and report-only ones. */
export interface PageHeaders {
  policies: readonly string[];
  reportOnly: readonly string[];
}

/** One request that reached the server with a case id. */
export interface ArrivedRequest {
  /** Whether it came over TLS (https:/wss:), which tells an upgraded request from one sent as written. */
  secure: boolean;
}

/** The RFC 6455 constant a server appends to the client's key to prove it speaks WebSocket. */
const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** The opcode of a WebSocket close frame. */
const WEBSOCKET_CLOSE = 0x8;

/** The first byte of a TLS handshake record; an HTTP request starts with a method's letter. */
const TLS_HANDSHAKE = 0x16;

/**
 * A self-signed certificate for `names` (default every test hostname of the truth), made with
 * `openssl` in a temporary folder (the browsers are told to accept it), so no key is kept in the
 * repository.
 */
export function selfSignedCertificate(names: readonly string[] = ['*.test', '*.cdn.test', '*.a.cdn.test']): {
  key: Buffer;
  cert: Buffer;
} {
  const folder = mkdtempSync(path.join(tmpdir(), 'edgeguard-csp-truth-'));
  try {
    const key = path.join(folder, 'key.pem');
    const cert = path.join(folder, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${names[0] ?? 'localhost'}`,
        '-addext',
        `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')},IP:127.0.0.1`,
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Why the server cannot listen on a port, in words that say what to do. */
function listenError(port: number, error: NodeJS.ErrnoException): Error {
  const why =
    error.code === 'EACCES'
      ? 'ports below 1024 need root'
      : error.code === 'EADDRINUSE'
        ? 'another process holds it: another recording or browser test?'
        : error.message;
  return new Error(`the browser truth's server cannot listen on 127.0.0.1:${port} (${error.code ?? 'error'}: ${why})`);
}

/** The local server; {@link TruthServer.start} listens on {@link SERVER_PORTS}. */
export class TruthServer {
  private readonly pages = new Map<string, PageHeaders>();
  private readonly arrived = new Map<string, ArrivedRequest[]>();
  private readonly listeners: net.Server[] = [];
  private readonly sockets = new Set<net.Socket>();
  private readonly plain = http.createServer((request, response) => this.answer(request, response, false));
  private readonly secure: https.Server;

  private constructor(certificate: { key: Buffer; cert: Buffer }) {
    this.secure = https.createServer(certificate, (request, response) => this.answer(request, response, true));
    this.plain.on('upgrade', (request: http.IncomingMessage, socket: Duplex) => this.upgrade(request, socket, false));
    this.secure.on('upgrade', (request: http.IncomingMessage, socket: Duplex) => this.upgrade(request, socket, true));
  }

  /** Makes the certificate and listens on every port of {@link SERVER_PORTS} (80 and 443 need root). */
  static async start(): Promise<TruthServer> {
    const server = new TruthServer(selfSignedCertificate());
    try {
      for (const port of SERVER_PORTS) {
        const listener = net.createServer((socket) => server.route(socket));
        server.listeners.push(listener);
        await new Promise<void>((resolve, reject) => {
          listener.once('error', (error: NodeJS.ErrnoException) => reject(listenError(port, error)));
          listener.listen(port, '127.0.0.1', resolve);
        });
      }
    } catch (error) {
      await server.close();
      throw error;
    }
    return server;
  }

  /** Registers the headers of a page; the page is then served at any URL with `?page=<key>`. */
  addPage(key: string, headers: PageHeaders): void {
    this.pages.set(key, headers);
  }

  /** The requests that arrived with this case id, in order. */
  arrivals(caseId: string): readonly ArrivedRequest[] {
    return this.arrived.get(caseId) ?? [];
  }

  /** Stops listening and ends every open connection (WebSockets stay open otherwise). */
  async close(): Promise<void> {
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await Promise.all(this.listeners.map((listener) => new Promise((resolve) => listener.close(resolve))));
  }

  /** Hands a new connection to the TLS or the plain server by its first byte, which stays unread. */
  private route(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      (first[0] === TLS_HANDSHAKE ? this.secure : this.plain).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
  }

  private log(request: http.IncomingMessage, secure: boolean): void {
    const caseId = new URL(request.url ?? '/', 'http://any').searchParams.get(CASE_PARAMETER);
    if (caseId !== null) {
      const list = this.arrived.get(caseId) ?? [];
      list.push({ secure });
      this.arrived.set(caseId, list);
    }
  }

  private answer(request: http.IncomingMessage, response: http.ServerResponse, secure: boolean): void {
    const pageKey = new URL(request.url ?? '/', 'http://any').searchParams.get(PAGE_PARAMETER);
    const page = pageKey === null ? undefined : this.pages.get(pageKey);
    if (page !== undefined) {
      // One header line per enforced policy: node sends an array as repeated header lines.
      if (page.policies.length > 0) {
        response.setHeader('content-security-policy', [...page.policies]);
      }
      if (page.reportOnly.length > 0) {
        response.setHeader('content-security-policy-report-only', [...page.reportOnly]);
      }
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end('<!doctype html><title>CSP truth</title><body></body>');
      return;
    }
    this.log(request, secure);
    response
      .writeHead(200, {
        'content-type': 'text/javascript',
        'access-control-allow-origin': '*',
        'cache-control': 'no-store',
      })
      .end('void 0;\n');
  }

  private upgrade(request: http.IncomingMessage, socket: Duplex, secure: boolean): void {
    this.log(request, secure);
    const key = request.headers['sec-websocket-key'];
    if (typeof key !== 'string') {
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const accept = createHash('sha1')
      .update(key + WEBSOCKET_GUID)
      .digest('base64');
    socket.on('error', () => socket.destroy());
    // The client closes as soon as it opens: answer its close frame with one and end, since a
    // browser keeps a socket whose close goes unanswered for its close timeout (Firefox, 20 s),
    // and enough of those stall its later handshakes.
    socket.on('data', (frame: Buffer) => {
      if (((frame[0] ?? 0) & 0x0f) === WEBSOCKET_CLOSE) {
        socket.end(Buffer.from([0x80 | WEBSOCKET_CLOSE, 0]));
      }
    });
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
  }
}
