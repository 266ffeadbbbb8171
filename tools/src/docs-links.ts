import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** A relative link that does not resolve: the file it is in, its line, the target and why. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** The documentation the checker covers: the root pages and every markdown file under docs/. */
export function documentationFiles(root: string): string[] {
  const rootPages = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'CHANGELOG.md'].filter((f) => existsSync(path.join(root, f)));
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(full);
      return entry.name.endsWith('.md') ? [path.relative(root, full)] : [];
    });
  const docs = existsSync(path.join(root, 'docs')) ? walk(path.join(root, 'docs')) : [];
  return [...rootPages, ...docs.sort()];
}

/** Lines of a markdown file with fenced code blocks blanked (links in code are not links). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!fence) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = undefined;
      return '';
    }
    return fence ? '' : line;
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const m = /^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/.exec(line);
    if (!m) continue;
    const text = m[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[*`]/g, '');
    const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

/** Every `[text](target)` and `[label]: target` outside code, with its line number. */
export function linksOf(markdown: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  proseLines(markdown).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: i + 1, target: m[1]! });
    const ref = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (ref) links.push({ line: i + 1, target: ref[1]! });
  });
  return links;
}

/** The links of `files` (relative to `root`) that point at a missing file or a missing heading. */
export function brokenLinks(root: string, files: string[]): BrokenLink[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchorsOf = (file: string) => {
    let anchors = anchorCache.get(file);
    if (!anchors) anchorCache.set(file, (anchors = headingAnchors(readFileSync(file, 'utf8'))));
    return anchors;
  };
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const full = path.join(root, file);
    for (const { line, target } of linksOf(readFileSync(full, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:… are not checked here
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved = pathPart ? path.resolve(path.dirname(full), pathPart) : full;
      const report = (reason: string) => broken.push({ file, line, target, reason });
      if (!path.relative(root, resolved) || path.relative(root, resolved).startsWith('..')) {
        if (pathPart) report('points outside the repository');
        continue;
      }
      if (!existsSync(resolved)) {
        report('no such file');
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
        report('an anchor on something that is not a markdown file');
        continue;
      }
      if (!anchorsOf(resolved).has(anchor)) report(`no heading with the anchor #${anchor}`);
    }
  }
  return broken;
}
