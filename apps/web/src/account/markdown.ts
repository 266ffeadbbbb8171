import MarkdownIt, { type Token } from 'markdown-it';

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
