import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../../helpers/repo';

/**
 * Every relative link of the documentation resolves: README.md, CONTRIBUTING.md and every page
 * under docs/ link to files of the repository that exist, and to headings (`#anchor`) that those
 * Markdown files have, as GitHub renders them.
 */

/** The documentation's Markdown files, from the repository root. */
function documentation(): string[] {
  const docs = fs
    .readdirSync(path.join(REPO, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => path.join('docs', file));
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()];
}

/** Markdown without its fenced code blocks and code spans, where brackets are no links. */
function prose(markdown: string): string {
  return markdown.replace(/^(`{3,}|~{3,})[^]*?^\1\s*$/gm, '').replace(/`+[^`\n]*`+/g, '');
}

/**
 * The anchor GitHub gives a heading (github-slugger's rule): its text as rendered, in lower case,
 * without punctuation but `-` and `_`, spaces as `-`; a repeated one gets `-1`, `-2`, ...
 */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/^(`{3,}|~{3,})[^]*?^\1\s*$/gm, '');
  for (const [, heading] of withoutCode.matchAll(/^#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const text = heading!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    let unique = slug;
    for (let count = 1; anchors.has(unique); count++) unique = `${slug}-${count}`;
    anchors.add(unique);
  }
  return anchors;
}

/** The targets of a Markdown file's inline links and images. */
function linksOf(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
}

test('the anchors of headings are those GitHub makes', () => {
  expect([
    ...anchorsOf(
      '# EdgeGuard\n## The two commands\n### `edgeguard-import`: the program from a live zone\n## A.B\n## A.B',
    ),
  ]).toEqual(['edgeguard', 'the-two-commands', 'edgeguard-import-the-program-from-a-live-zone', 'ab', 'ab-1']);
  expect([...anchorsOf('```sh\n# not a heading\n```\n## [Linked](x.md) heading')]).toEqual(['linked-heading']);
  // A longer fence holds shorter ones (a Markdown sample with code blocks in it).
  expect([...anchorsOf('````markdown\n```\ncode\n```\n# sample\n````\n## After')]).toEqual(['after']);
  expect(linksOf('[a](b.md#c) `[d](e.md)` [f](https://g.example) ![h](i.png "title")')).toEqual([
    'b.md#c',
    'https://g.example',
    'i.png',
  ]);
});

test.each(documentation())('every relative link of %s resolves', (file) => {
  const text = fs.readFileSync(path.join(REPO, file), 'utf8');
  const broken: string[] = [];
  for (const link of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
    const [target = '', anchor] = link.split('#');
    const resolved = target === '' ? path.join(REPO, file) : path.resolve(path.dirname(path.join(REPO, file)), target);
    if (path.relative(REPO, resolved).startsWith('..')) broken.push(`${link}: outside the repository`);
    else if (!fs.existsSync(resolved)) broken.push(`${link}: no such file`);
    else if (
      anchor !== undefined &&
      !(resolved.endsWith('.md') && anchorsOf(fs.readFileSync(resolved, 'utf8')).has(anchor))
    )
      broken.push(`${link}: no heading #${anchor} there`);
  }
  expect(broken).toEqual([]);
});
