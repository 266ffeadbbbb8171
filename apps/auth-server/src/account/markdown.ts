import MarkdownIt, { type Token } from 'markdown-it';
import { diffLines } from 'diff';

/**
 * Markdown a shaping note holds (written by an AI assistant: untrusted) as HTML for the account pages.
 * markdown-it with raw HTML off escapes every tag in the text, and its link check refuses javascript:,
 * vbscript: and file: addresses, so no script reaches the page. On top of that: no image is loaded
 * (a remote one would tell its server who reads the note; it becomes its description and address
 * instead), and a link that leaves Loupe is marked external, in words for screen readers too.
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** The links being rendered, inner last: external or not. */
type LinkEnv = { open?: boolean[] };

const isExternal = (href: string) => /^(https?:)?\/\//i.test(href) || /^mailto:/i.test(href);

md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  const external = isExternal(String(token.attrGet('href') ?? ''));
  ((env as LinkEnv).open ??= []).push(external);
  if (external) {
    token.attrSet('rel', 'noopener noreferrer nofollow');
    token.attrJoin('class', 'external');
  }
  return self.renderToken(tokens, idx, options);
};
md.renderer.rules.link_close = (tokens, idx, options, env, self) =>
  `${(env as LinkEnv).open?.pop() ? '<span class="visually-hidden"> (external link)</span>' : ''}${self.renderToken(tokens, idx, options)}`;
md.renderer.rules.image = (tokens: Token[], idx: number) => {
  const token = tokens[idx]!;
  const alt = md.utils.escapeHtml(token.content || 'image');
  const src = md.utils.escapeHtml(String(token.attrGet('src') ?? ''));
  return `<span class="image-off">Image not shown: ${alt}${src ? ` (<span class="mono">${src}</span>)` : ''}</span>`;
};

export function renderMarkdown(text: string): string {
  return md.render(text, {});
}

export interface DiffLine {
  /** `gap`: unchanged lines left out. */
  kind: 'added' | 'removed' | 'same' | 'gap';
  text: string;
}

/** Line by line, what changed from `before` to `after` (unchanged runs longer than 6 lines are shortened to their ends). */
export function diffText(before: string, after: string): DiffLine[] {
  const out: DiffLine[] = [];
  for (const part of diffLines(before, after)) {
    const lines = part.value.replace(/\n$/, '').split('\n');
    const kind: DiffLine['kind'] = part.added ? 'added' : part.removed ? 'removed' : 'same';
    if (kind === 'same' && lines.length > 6) {
      out.push(...lines.slice(0, 2).map((text) => ({ kind, text })), { kind: 'gap', text: `${lines.length - 4} unchanged lines` }, ...lines.slice(-2).map((text) => ({ kind, text })));
    } else {
      out.push(...lines.map((text) => ({ kind, text })));
    }
  }
  return out;
}
