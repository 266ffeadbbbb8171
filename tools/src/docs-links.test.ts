import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenLinks, documentationFiles, headingAnchors, linksOf } from './docs-links';

const repoRoot = path.resolve(import.meta.dirname, '../..');

describe('the documentation links', () => {
  it('covers the root pages and docs/', () => {
    const files = documentationFiles(repoRoot);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'CHANGELOG.md', 'docs/quickstart.md']));
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(20);
  });

  it('has every relative link and #anchor resolving', () => {
    const broken = brokenLinks(repoRoot, documentationFiles(repoRoot));
    expect(broken.map((b) => `${b.file}:${b.line} ${b.target}: ${b.reason}`)).toEqual([]);
  });
});

describe('the link checker', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docs-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes anchors as GitHub does', () => {
    const anchors = headingAnchors('# Search (`find_sources`)\n## Credits, plans and limits\n## Notes\n## Notes\n```\n# not a heading\n```\n### `data` by record type\n');
    expect([...anchors]).toEqual(['search-find_sources', 'credits-plans-and-limits', 'notes', 'notes-1', 'data-by-record-type']);
  });

  it('ignores links in code and reads reference links', () => {
    const links = linksOf('See [a](a.md) and `[b](b.md)`.\n```\n[c](c.md)\n```\n[d]: d.md#x\n');
    expect(links).toEqual([{ line: 1, target: 'a.md' }, { line: 5, target: 'd.md#x' }]);
  });

  it('reports a missing file, a missing anchor and an anchor in the same page', () => {
    mkdirSync(path.join(dir, 'docs'), { recursive: true });
    writeFileSync(path.join(dir, 'README.md'), '# Top\n\n[ok](docs/a.md#first) [gone](docs/missing.md) [bad](docs/a.md#nope) [self](#top) [selfbad](#nowhere) [web](https://example.com/x)\n');
    writeFileSync(path.join(dir, 'docs', 'a.md'), '# First\n\n[up](../README.md#top) [dir](.)\n');
    const broken = brokenLinks(dir, documentationFiles(dir));
    expect(broken.map((b) => [b.file, b.target, b.reason])).toEqual([
      ['README.md', 'docs/missing.md', 'no such file'],
      ['README.md', 'docs/a.md#nope', 'no heading with the anchor #nope'],
      ['README.md', '#nowhere', 'no heading with the anchor #nowhere'],
    ]);
  });
});
