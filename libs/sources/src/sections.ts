import { firstString, isObject, readableText, segmentsOf } from './text';
import type { Segment } from './types';

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(```|~~~)/;

/**
 * Markdown split at its headings: each heading starts a section that runs to the next one;
 * text before the first heading belongs to `heading` (the caller's, or none). Headings
 * inside fenced code blocks are text.
 */
export function sectionsFromMarkdown(markdown: string, heading: string | null = null): Segment[] {
  const sections: { heading: string | null; lines: string[] }[] = [{ heading, lines: [] }];
  let fenced = false;
  for (const line of markdown.split(/\r?\n/)) {
    if (FENCE.test(line)) fenced = !fenced;
    const m = fenced ? null : HEADING.exec(line);
    if (m) sections.push({ heading: m[2]!, lines: [] });
    else sections[sections.length - 1]!.lines.push(line);
  }
  return sections.flatMap((s) => {
    const text = s.lines.join('\n');
    if (text.trim()) return segmentsOf('section', text, { heading: s.heading });
    // A heading with nothing under it still says something: keep it as its own text.
    return s.heading && s.heading !== heading ? segmentsOf('section', s.heading, { heading: s.heading }) : [];
  });
}

/** The first level-one heading of a markdown text, for a title. */
export function firstMarkdownTitle(markdown: string): string | undefined {
  for (const line of markdown.split(/\r?\n/, 50)) {
    const m = /^ {0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$/.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/** A `sections` list: `{heading|title|name, content|text|body|markdown}` items, or strings. */
export function sectionsFromList(list: unknown[]): Segment[] | undefined {
  const usable = list.filter((item) => typeof item === 'string' || isObject(item));
  if (usable.length < list.length / 2 || usable.length === 0) return undefined;
  return list.flatMap((item, i) => {
    if (typeof item === 'string') return sectionsFromMarkdown(item);
    if (!isObject(item)) return segmentsOf('field', readableText(item), { heading: `Section ${i + 1}` });
    const heading = firstString(item, ['heading', 'title', 'name', 'header']) ?? null;
    const bodyKey = ['content', 'text', 'body', 'markdown', 'value'].find((k) => item[k] !== undefined);
    const rest = Object.fromEntries(Object.entries(item).filter(([k]) => k !== bodyKey && !['heading', 'title', 'name', 'header'].includes(k)));
    const body = bodyKey === undefined ? '' : readableText(item[bodyKey]);
    const restText = Object.keys(rest).length ? readableText(rest) : '';
    const text = [body, restText].filter((t) => t.trim()).join('\n\n');
    if (!text.trim()) return heading ? segmentsOf('section', heading, { heading }) : [];
    return typeof item[bodyKey ?? ''] === 'string' && !restText ? sectionsFromMarkdown(text, heading) : segmentsOf('section', text, { heading });
  });
}
