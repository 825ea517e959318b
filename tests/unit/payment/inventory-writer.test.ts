import { createHash } from 'node:crypto';
import * as ts from 'typescript';
import { isScalar, parse as parseYaml, parseDocument, visit, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import {
  authorizingEntry,
  cspSources,
  inlineSourceOfHex,
  JUSTIFICATION_PLACEHOLDER,
  parseInventoryPage,
  parseScriptInventory,
  type ScriptInventoryInput,
} from '../../../rules/inventory';
import {
  inventoryProgram,
  writeInventory,
  type InventoryProgramOptions,
  type ProgramLanguage,
  type WrittenInventory,
} from '../../../provider/program/inventory';
import { inlineSourcesSeen } from '../../../provider/payment/probe';
import type { ProbeReport, ProbeScript } from '../../../provider/payment/probe-schema';
import type { PaymentScript } from '../../../provider/payment/scripts';
import { literalValue, prettierFormat, typeErrors } from '../../helpers/typescript';
import { reportOf } from './probe-report';

/**
 * The program edgeguard-inventory writes (issue 25, item 2), from scripts as `readPaymentScripts`
 * reads them: the inventory (one pinned entry per script, sorted, the marked blank as every
 * justification, what is left out and why), the enforcing policy per host, and both languages read
 * back by their parsers (TypeScript's, the `yaml` package's with Pulumi YAML's `$$`), so that a
 * value read back is the value written, whatever it holds.
 */

const ZONE = 'c0000000000000000000000000000001';
const CLOSING = "; object-src 'none'; base-uri 'self'";
const STRIPE = 'https://js.stripe.com/v3/fingerprinted/js/elements.js';
const PAYMENT = 'https://checkout.example.com/js/payment.js';
const HASH = (digit: string) => digit.repeat(64);

const script = (url: string, extra: Partial<PaymentScript> = {}): PaymentScript => ({
  id: url,
  url,
  status: 'active',
  firstSeenAt: '2026-11-01T00:00:00.000Z',
  lastSeenAt: '2026-11-20T00:00:00.000Z',
  hash: HASH('a'),
  scores: { js_integrity_score: 50 },
  malicious: false,
  reported: { domainMalicious: false, urlMalicious: false, urlCategories: [] },
  pages: ['https://checkout.example.com/pay'],
  inventoryPages: ['checkout.example.com/pay'],
  integrity: 'unauthorized',
  changes: [],
  ...extra,
});

const malicious = (url: string, score = 4) =>
  script(url, { malicious: true, scores: { js_integrity_score: score }, hash: HASH('e') });

const options = (language: ProgramLanguage, extra: Partial<InventoryProgramOptions> = {}): InventoryProgramOptions => ({
  zoneId: ZONE,
  action: 'allow',
  language,
  ...extra,
});

/** A resource of a program as read back: its type, name and properties. */
interface Declared {
  type: string;
  name: string;
  properties: Record<string, unknown>;
}

/** The TypeScript program read back with TypeScript's parser: its constants and resources. */
function readTypescript(text: string): { constants: Record<string, unknown>; resources: Declared[] } {
  const source = ts.createSourceFile('index.ts', text, ts.ScriptTarget.ES2023, true);
  // The policy's value, a tagged template, is read as its code.
  const valueOf = (node: ts.Expression): unknown => literalValue(node, (code) => `<${code.getText(source)}>`);
  const resourceOf = (node: ts.Expression): Declared => {
    if (!ts.isNewExpression(node)) throw new Error(`unexpected ${ts.SyntaxKind[node.kind]}`);
    const [name, args] = node.arguments!;
    return {
      type: node.expression.getText(source),
      name: valueOf(name!) as string,
      properties: valueOf(args!) as Record<string, unknown>,
    };
  };
  const constants: Record<string, unknown> = {};
  const resources: Declared[] = [];
  for (const statement of source.statements) {
    if (ts.isExpressionStatement(statement)) resources.push(resourceOf(statement.expression));
    else if (ts.isVariableStatement(statement)) {
      const [declaration] = statement.declarationList.declarations;
      const name = declaration!.name.getText(source);
      if (name === 'inventory') resources.push(resourceOf(declaration!.initializer!));
      else constants[name] = valueOf(declaration!.initializer!);
    } else if (!ts.isImportDeclaration(statement)) throw new Error(`unexpected ${ts.SyntaxKind[statement.kind]}`);
  }
  return { constants, resources };
}

/** A string as Pulumi YAML reads it: `$$` is `$` (an interpolation `${...}` is left as it is). */
const pulumiYamlText = (text: string) => text.replace(/\$\$/g, '$');

function pulumiYamlValues(value: unknown): unknown {
  if (typeof value === 'string') return pulumiYamlText(value);
  if (Array.isArray(value)) return value.map(pulumiYamlValues);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, pulumiYamlValues(item)]));
  return value;
}

/** The YAML program read back with the `yaml` package, its strings as Pulumi YAML reads them. */
function readYaml(text: string): { project: Record<string, unknown>; resources: Declared[] } {
  const project = pulumiYamlValues(parseYaml(text)) as Record<string, unknown>;
  const resources = Object.entries(project.resources as Record<string, { type: string; properties: object }>).map(
    ([name, resource]) => ({
      type: resource.type,
      name,
      properties: resource.properties as Record<string, unknown>,
    }),
  );
  return { project, resources };
}

/** The program in `language`, read back: its resources with the zone as `<zoneId>`, whichever way it is written. */
function readBack(language: ProgramLanguage, text: string): Declared[] {
  if (language === 'typescript') {
    const { constants, resources } = readTypescript(text);
    expect(constants).toEqual({ zoneId: ZONE });
    return resources;
  }
  const { project, resources } = readYaml(text);
  expect(project).toMatchObject({
    name: 'payment-scripts',
    runtime: 'yaml',
    config: { zoneId: { type: 'string', default: ZONE } },
  });
  return resources.map((resource) => ({
    ...resource,
    type: resource.type.replace(/^edgeguard:/, 'edgeguard.'),
    properties: Object.fromEntries(
      Object.entries(resource.properties).map(([key, value]) => [key, value === '${zoneId}' ? '<zoneId>' : value]),
    ),
  }));
}

/** The inventory's inputs as the program declares them. */
function inventoryInputs(resources: Declared[]): ScriptInventoryInput {
  const [inventory] = resources.filter((resource) => resource.type === 'edgeguard.ScriptInventory');
  return inventory!.properties as unknown as ScriptInventoryInput;
}

/** The value each language feeds the policy with from the inventory's output. */
const POLICY_VALUE: Record<ProgramLanguage, string> = {
  typescript: `<pulumi.interpolate\`script-src \${inventory.cspSources}${CLOSING}\`>`,
  yaml: `script-src \${payment-scripts.cspSources}${CLOSING}`,
};

const LANGUAGES = ['typescript', 'yaml'] as const;

describe('one payment page with three scripts, one of them in two versions', () => {
  const scripts = [
    script(STRIPE, { hash: HASH('b') }),
    // A script in its second version: still one entry, the current hash pinned.
    script(PAYMENT, {
      hash: HASH('c'),
      changes: [{ hash: HASH('c') }, { hash: HASH('d') }] as PaymentScript['changes'],
    }),
    script('https://www.google.com/recaptcha/api.js', { hash: 'ABCDEF0123456789' }),
  ];
  const written = writeInventory(['checkout.example.com/pay'], scripts);

  test('one url entry per script, sorted by URL, the hash of its current version pinned (lowercase)', () => {
    expect(written).toEqual<WrittenInventory>({
      pages: ['checkout.example.com/pay'],
      hosts: ['checkout.example.com'],
      entries: [
        { url: PAYMENT, hash: HASH('c') },
        { url: STRIPE, hash: HASH('b') },
        { url: 'https://www.google.com/recaptcha/api.js', hash: 'abcdef0123456789' },
      ],
      leftOut: [],
      detected: 3,
      inline: [],
    });
  });

  test.each(LANGUAGES)('%s: the inventory and its enforcing policy, as read back', (language) => {
    const resources = readBack(language, inventoryProgram(options(language), written));
    expect(resources).toEqual([
      {
        type: 'edgeguard.ScriptInventory',
        name: 'payment-scripts',
        properties: {
          zoneId: '<zoneId>',
          pages: ['checkout.example.com/pay'],
          scripts: written.entries.map((entry) => ({
            url: entry.url,
            justification: JUSTIFICATION_PLACEHOLDER,
            hash: entry.hash,
          })),
        },
      },
      {
        type: 'edgeguard.CspPolicy',
        name: 'payment-csp-checkout-example-com',
        properties: {
          zoneId: '<zoneId>',
          description:
            "checkout.example.com: only the scripts of the payment pages' inventory (PCI DSS 6.4.3), written by edgeguard-inventory",
          action: 'allow',
          expression: 'http.host eq "checkout.example.com"',
          value: POLICY_VALUE[language],
        },
      },
    ]);
  });

  test.each(LANGUAGES)(
    '%s: preview refuses the inventory as written, naming the first entry and its blank; justified, it authorizes every script at its pinned hash',
    (language) => {
      const inputs = inventoryInputs(readBack(language, inventoryProgram(options(language), written)));
      const refused = parseScriptInventory(inputs);
      expect(refused.ok).toBe(false);
      if (refused.ok) return;
      expect(refused.error.path).toEqual(['scripts', 0, 'justification']);
      expect(refused.error.message).toBe(
        `scripts[0] (url "${PAYMENT}"): invalid justification "TODO: justify" at position 0: it holds the blank edgeguard-inventory writes; ` +
          'a person must write why the script is on the payment pages (the business or technical reason PCI DSS 6.4.3 asks for)',
      );
      const justified = parseScriptInventory({
        ...inputs,
        scripts: inputs.scripts.map((entry) => ({ ...entry, justification: `Needed: ${entry.url}` })),
      });
      if (!justified.ok) throw new Error(justified.error.message);
      for (const detected of scripts) {
        const entry = authorizingEntry(justified.value, detected.url);
        expect(entry).toMatchObject({ kind: 'url', hash: detected.hash!.toLowerCase() });
      }
    },
  );

  test('the header says that every justification is the marked blank preview refuses', () => {
    for (const [language, marker] of [
      ['typescript', '//'],
      ['yaml', '#'],
    ] as const) {
      const header = inventoryProgram(options(language), written)
        .split('\n')
        .filter((line) => line.startsWith(marker))
        .join(' ')
        .replaceAll(`${marker} `, '');
      expect(header).toContain(
        'Every justification is the marked blank "TODO: justify", which pulumi preview refuses, naming the entry, until a person writes why the script is on the payment pages',
      );
      expect(header).toContain('3 entries for the 3 scripts detected');
    }
  });

  test('the TypeScript is as Prettier writes it, and type-checks against the package', () => {
    const text = inventoryProgram(options('typescript'), written);
    expect(prettierFormat(text)).toBe(text);
    expect(typeErrors(text, 'inventory-program')).toEqual([]);
  }, 120_000);
});

describe('what is left out, and why', () => {
  const scripts = [
    malicious('https://analytics-cdn.example.info/collect.min.js', 7),
    script('http://cdn.example.net/legacy.js'),
    script(STRIPE),
    script('https://cdn.example.net//double.js'),
    script('not a url'),
  ];
  const written = writeInventory(['checkout.example.com'], scripts);
  const reasons = {
    'http://cdn.example.net/legacy.js':
      'not https: the inventory authorizes https: scripts only, as the browser blocks an http: script on an https: payment page (mixed content); serve it over https, then add it',
    'https://analytics-cdn.example.info/collect.min.js':
      'malicious (js_integrity_score 7; js_integrity_score below 10 is malicious): remove it from the pages; an inventory must not authorize it',
    'https://cdn.example.net//double.js': 'the inventory cannot hold its URL: two slashes in a row; remove one',
    'not a url': 'its URL cannot be read',
  };

  test('a malicious script, an http: one, and URLs the inventory cannot hold are no entries; each is said why', () => {
    expect(written.entries).toEqual([{ url: STRIPE, hash: HASH('a') }]);
    expect(written.leftOut).toEqual(Object.entries(reasons).map(([url, reason]) => ({ url, reason })));
    expect(written.detected).toBe(5);
  });

  test('a malicious script is left out even when its URL is not https', () => {
    expect(writeInventory(['checkout.example.com'], [malicious('http://evil.example.info/x.js')]).leftOut).toEqual([
      { url: 'http://evil.example.info/x.js', reason: expect.stringMatching(/^malicious \(js_integrity_score 4;/) },
    ]);
  });

  test.each([
    ['typescript', '//'],
    ['yaml', '#'],
  ] as const)('%s: a comment lists them, each with its reason', (language, marker) => {
    const lines = inventoryProgram(options(language), written).split('\n');
    const at = lines.findIndex((line) => line.trim() === `${marker} Left out (4):`);
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 5).map((line) => line.trim())).toEqual(
      Object.entries(reasons).map(([url, reason]) => `${marker} - ${url}: ${reason}`),
    );
    expect(readBack(language, lines.join('\n'))).toHaveLength(2);
  });

  test('nothing detected, or nothing kept: an inventory without entries and its policy still', () => {
    const empty = writeInventory(['checkout.example.com'], [malicious('https://x.example.info/a.js')]);
    expect(empty.entries).toEqual([]);
    for (const language of LANGUAGES) {
      const resources = readBack(language, inventoryProgram(options(language), empty));
      expect(inventoryInputs(resources).scripts).toEqual([]);
      expect(resources.map((resource) => resource.type)).toEqual(['edgeguard.ScriptInventory', 'edgeguard.CspPolicy']);
    }
  });
});

describe('pins', () => {
  test('URLs that name the same script make one entry, pinned when their hashes agree, unpinned saying why otherwise', () => {
    const same = [script('https://cdn.example.net/%61pp.js'), script('https://CDN.example.net:443/app.js#v2')];
    expect(writeInventory(['checkout.example.com'], same).entries).toEqual([
      { url: 'https://cdn.example.net/%61pp.js', hash: HASH('a') },
    ]);
    const differing = [same[0]!, { ...same[1]!, hash: HASH('b') }];
    expect(writeInventory(['checkout.example.com'], differing).entries).toEqual([
      {
        url: 'https://cdn.example.net/%61pp.js',
        unpinned:
          'page security reports the script at 2 URLs the inventory takes for one, with different hashes; pin the one you approve',
      },
    ]);
  });

  test('no hash, or one the inventory cannot pin: an entry without hash, and a comment saying why', () => {
    const written = writeInventory(
      ['checkout.example.com'],
      [script(PAYMENT, { hash: undefined }), script(STRIPE, { hash: 'not-hex' })],
    );
    expect(written.entries).toEqual([
      { url: PAYMENT, unpinned: 'page security reports no hash for it (a plan without hashes)' },
      {
        url: STRIPE,
        unpinned:
          'its hash as page security reports it cannot be pinned: the character "n" is not hexadecimal; write the hexadecimal digest page security reports as the script\'s hash, 8 to 128 digits',
      },
    ]);
    for (const language of LANGUAGES) {
      const text = inventoryProgram(options(language), written);
      expect(inventoryInputs(readBack(language, text)).scripts).toEqual([
        { url: PAYMENT, justification: JUSTIFICATION_PLACEHOLDER },
        { url: STRIPE, justification: JUSTIFICATION_PLACEHOLDER },
      ]);
      expect(text).toContain(`Not pinned (2):`);
      expect(text).toContain(`- ${PAYMENT}: page security reports no hash for it`);
    }
  });
});

describe('several hosts', () => {
  const written = writeInventory(
    ['checkout.example.com/pay', 'pay.example.com', 'checkout.example.com/cart'],
    [script(STRIPE), script('https://pay.example.com/app.js')],
  );

  test.each(LANGUAGES)(
    '%s: one enforcing policy per host, in the order of the pages, each saying it covers every page of its host',
    (language) => {
      const text = inventoryProgram(options(language, { action: 'log' }), written);
      const policies = readBack(language, text).filter((resource) => resource.type === 'edgeguard.CspPolicy');
      expect(policies.map(({ name, properties }) => ({ name, ...properties }))).toEqual(
        ['checkout.example.com', 'pay.example.com'].map((host) => ({
          name: `payment-csp-${host.replaceAll('.', '-')}`,
          zoneId: '<zoneId>',
          description: `${host}: only the scripts of the payment pages' inventory (PCI DSS 6.4.3), written by edgeguard-inventory`,
          action: 'log',
          expression: `http.host eq "${host}"`,
          value: POLICY_VALUE[language],
        })),
      );
      const flat = text.replace(/\n\s*(\/\/|#)/g, '');
      for (const host of ['checkout.example.com', 'pay.example.com'])
        expect(flat).toContain(
          ` The policy covers every page of ${host}, not only its payment pages: its expression selects the host alone`,
        );
      expect(inventoryInputs(readBack(language, text)).pages).toEqual([
        'checkout.example.com/pay',
        'pay.example.com',
        'checkout.example.com/cart',
      ]);
    },
  );
});

describe('hostile strings', () => {
  /** Valid script URLs holding what quoting must survive: quotes, `$`, `${...}`, YAML's indicators. */
  const HOSTILE = [
    'https://cdn.example.net/a\'b"c.js',
    'https://cdn.example.net/${zoneId}.js?x=$${y}&z=$',
    "https://cdn.example.net/x.js?q=a:b,-[d]{e}|>*&!%25@`f`\\g'h",
    'https://cdn.example.net/0b101.js?yes=on&null=~',
  ];
  /** A page holding a character a YAML parser takes for a line end (NEL), given on the command line. */
  const NEL_PAGE = 'checkout.example.com/pay\u0085ment';
  /** A reported URL that would end a comment, if written as it is. */
  const BREAKING = 'https://evil.example.info/a.js\nconst injected = 1;\u2028\u0085# injected: 1\r\n*/';
  const scripts = [...HOSTILE.map((url) => script(url, { hash: '12345678' })), malicious(BREAKING)];
  const written = writeInventory([NEL_PAGE], scripts);
  /** The fields whose values come from the service or the command line. */
  const DATA_FIELDS = new Set(['url', 'justification', 'hash', 'default', 'description', 'expression']);

  test('URLs are written as the inventory parses them, none lost; the page with NEL is percent-encoded and names the same page', () => {
    expect(written.entries).toHaveLength(HOSTILE.length);
    const [page] = written.pages;
    expect(page).toBe('checkout.example.com/pay%C2%85ment');
    const parse = (text: string) => {
      const parsed = parseInventoryPage(text);
      if (!parsed.ok) throw new Error(parsed.error.message);
      return parsed.value.text;
    };
    expect(parse(page!)).toBe(parse(NEL_PAGE));
  });

  test.each(LANGUAGES)('%s: every value read back is the value written, and the comment holds the URL', (language) => {
    const text = inventoryProgram(options(language), written);
    const resources = readBack(language, text);
    // Only the two resources: nothing in a comment ended it early.
    expect(resources.map((resource) => resource.name)).toEqual(['payment-scripts', 'payment-csp-checkout-example-com']);
    const inputs = inventoryInputs(resources);
    expect(inputs.pages).toEqual(written.pages);
    expect(inputs.scripts).toEqual(
      written.entries.map((entry) => ({ url: entry.url, justification: JUSTIFICATION_PLACEHOLDER, hash: '12345678' })),
    );
    const justified = parseScriptInventory({
      ...inputs,
      scripts: inputs.scripts.map((entry) => ({ ...entry, justification: 'Reviewed' })),
    });
    if (!justified.ok) throw new Error(justified.error.message);
    for (const url of HOSTILE) expect(authorizingEntry(justified.value, url)).toBeDefined();
    const marker = language === 'yaml' ? '#' : '//';
    expect(text).toContain(
      `${marker} - https://evil.example.info/a.js\\nconst injected = 1;\\u2028\\x85# injected: 1\\r\\n*/: malicious`,
    );
  });

  test('the YAML holds no character a YAML parser reads as a line end or refuses, and every value of the data double-quoted', () => {
    const text = inventoryProgram(options('yaml'), written);
    // eslint-disable-next-line no-control-regex -- the characters a YAML file cannot hold as written
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    // Double quotes, so that no value is read as a number (the hash 12345678) or as YAML syntax.
    const document = parseDocument(text);
    const styles = new Set<string>();
    for (const section of ['config', 'resources'])
      visit(document.get(section, true) as YAMLMap, {
        Pair(_, pair) {
          if (isScalar(pair.key) && isScalar(pair.value) && DATA_FIELDS.has(String(pair.key.value)))
            styles.add(`${String(pair.key.value)}: ${String(pair.value.type)}`);
        },
      });
    expect([...styles].sort()).toEqual([...DATA_FIELDS].map((field) => `${field}: QUOTE_DOUBLE`).sort());
    const pages = document.getIn(['resources', 'payment-scripts', 'properties', 'pages'], true) as YAMLSeq<Scalar>;
    expect(pages.items.map((page) => page.type)).toEqual(['QUOTE_DOUBLE']);
  });

  test('the TypeScript with them is as Prettier writes it', () => {
    const text = inventoryProgram(options('typescript'), written);
    expect(prettierFormat(text)).toBe(text);
  });
});

describe('inline entries for what a probe saw (edgeguard-inventory --probe, issue 41)', () => {
  const config = 'window.shopConfig = { currency: "EUR" };';
  const hex = createHash('sha256').update(config).digest('hex');
  const source = inlineSourceOfHex(hex);
  const pages = parseScriptInventory({ pages: ['checkout.example.com/pay'], scripts: [] });
  if (!pages.ok) throw new Error(pages.error.message);

  /** A probe report of a page holding `scripts`. */
  function report(page: string, scripts: ProbeScript[]): ProbeReport {
    const probed = {
      page,
      url: `https://${page}`,
      loaded: true,
      headers: {},
      loads: [],
      scripts,
      frames: [],
      serviceWorkers: [],
      violations: [],
      alerts: [],
      notices: [],
    };
    return reportOf([probed], ZONE);
  }
  const seenOn = [{ device: 'desktop' as const, load: 1 }];
  const inline = (sha256: string, more: Partial<ProbeScript> = {}): ProbeScript => ({
    kind: 'inline',
    sha256,
    hashSource: inlineSourceOfHex(sha256),
    frame: 'https://checkout.example.com/pay',
    context: 'page',
    seenOn,
    ...more,
  });

  test('the inline scripts of the pages, once each; not eval code, nor a provider frame’s, nor another page’s', () => {
    const other = 'e5'.repeat(32);
    const seen = report('checkout.example.com/pay', [
      inline(hex),
      inline(hex, { frame: 'https://checkout.example.com/pay#again' }),
      { ...inline(other), kind: 'eval' },
      inline(other, {
        context: 'frame',
        frame: 'https://js.pay.example/v3/f.html',
        underFrame: 'https://js.pay.example/v3/',
      }),
    ]);
    expect(inlineSourcesSeen(seen, pages.value.pages)).toEqual([source]);
    expect(inlineSourcesSeen(report('checkout.example.com/other', [inline(hex)]), pages.value.pages)).toEqual([]);
  });

  test.each(LANGUAGES)(
    '%s: an inline entry after the url entries, its justification the marked blank; its hash parses',
    (language) => {
      const written = writeInventory(
        ['checkout.example.com/pay'],
        [script(STRIPE, { hash: HASH('b') })],
        [source, source],
      );
      expect(written.inline).toEqual([source]);
      const scripts = inventoryInputs(readBack(language, inventoryProgram(options(language), written))).scripts;
      expect(scripts).toEqual([
        { url: STRIPE, justification: JUSTIFICATION_PLACEHOLDER, hash: HASH('b') },
        { inline: source, justification: JUSTIFICATION_PLACEHOLDER },
      ]);
      // Once justified, the inventory takes it, and its policy lets exactly that script run.
      const justified = parseScriptInventory({
        pages: ['checkout.example.com/pay'],
        scripts: scripts.map((entry) => ({ ...entry, justification: 'reviewed' })),
      });
      expect(justified.ok && cspSources(justified.value)).toContain(source);
    },
  );
});
