import type { Request, Response } from 'express';
import type { Icon, Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * Icons on tools (MCP 2025-11-25 and 2026-07-28 `icons`, issue 25): one small SVG per kind of tool,
 * served by this app under the MCP path (so a path-routing proxy sends them here) and named by URL:
 * a data URI on each of 13 tools would cost ~1,100 tokens of tools/list, a URL ~24 each.
 */
const STROKE = 'fill="none" stroke="#4338ca" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"';
const svg = (body: string) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><g ${STROKE}>${body}</g></svg>`;

export const TOOL_ICON_SVGS = {
  /** A box: products and projects. */
  product: svg('<path d="M3 7l9-4 9 4-9 4-9-4z"/><path d="M3 7v10l9 4 9-4V7"/><path d="M12 11v10"/>'),
  /** An open book: methodology guides. */
  skill: svg('<path d="M2 5c3-1.5 7-1.5 10 1 3-2.5 7-2.5 10-1v14c-3-1.5-7-1.5-10 1-3-2.5-7-2.5-10-1z"/><path d="M12 6v14"/>'),
  /** A magnifier: search. */
  search: svg('<circle cx="10" cy="10" r="6.5"/><path d="M15 15l6 6"/>'),
  /** A page with lines: reading. */
  read: svg('<path d="M6 2h9l4 4v16H6z"/><path d="M9 11h7M9 15h7M9 19h4"/>'),
  /** A page with a plus: adding evidence. */
  add: svg('<path d="M6 2h9l4 4v16H6z"/><path d="M12.5 10v8M8.5 14h8"/>'),
  /** A flag: signals. */
  signal: svg('<path d="M5 22V3"/><path d="M5 4h12l-3 4.5L17 13H5"/>'),
  /** Three grouped circles: opportunities (signals grouped by meaning). */
  opportunity: svg('<circle cx="7" cy="8" r="3.5"/><circle cx="17" cy="8" r="3.5"/><circle cx="12" cy="17" r="3.5"/>'),
  /** A pencil: shaping notes. */
  note: svg('<path d="M4 20l1-5L16 4l4 4L9 19z"/><path d="M14 6l4 4"/>'),
} as const;

export type ToolIconKind = keyof typeof TOOL_ICON_SVGS;

/** Our tools' icons, by tool name; a tool not named here (a third party's) lists none. */
const KIND_OF_TOOL: Record<string, ToolIconKind> = {
  get_products: 'product',
  find_skills: 'skill',
  read_skills: 'skill',
  find_sources: 'search',
  read_source: 'read',
  add_source: 'add',
  add_signals: 'signal',
  update_signals: 'signal',
  get_opportunities: 'opportunity',
  view_item: 'read',
  list_shaping_notes: 'note',
  create_shaping_note: 'note',
  update_shaping_note: 'note',
};

/** Where the icons are served, below the MCP endpoint's path. */
export const TOOL_ICONS_PATH = '/api/mcp/icons';

export const toolIconUrl = (baseUrl: string, kind: ToolIconKind) => `${baseUrl}${TOOL_ICONS_PATH}/${kind}.svg`;

/** The tool as listed, with its icon when it is one of ours. */
export function withIcon(tool: Tool, baseUrl: string | undefined): Tool {
  const kind = KIND_OF_TOOL[tool.name];
  if (!kind || !baseUrl) return tool;
  const icons: Icon[] = [{ src: toolIconUrl(baseUrl, kind), mimeType: 'image/svg+xml' }];
  return { ...tool, icons };
}

/** GET /api/mcp/icons/:file: an icon, cacheable for a day, readable cross-origin (browser-based clients). */
export function serveToolIcon(req: Request, res: Response) {
  const kind = /^([a-z]+)\.svg$/.exec(String(req.params.file))?.[1];
  if (!kind || !Object.hasOwn(TOOL_ICON_SVGS, kind)) {
    return void res.status(404).json({ error: 'Not found', error_description: `No icon ${JSON.stringify(req.params.file)}; the icons are ${Object.keys(TOOL_ICON_SVGS).map((k) => `${k}.svg`).join(', ')}` });
  }
  res.setHeader('cache-control', 'public, max-age=86400');
  res.setHeader('access-control-allow-origin', '*');
  // An SVG from our origin: no scripts, nothing loaded, even if opened on its own.
  res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
  res.type('image/svg+xml').send(TOOL_ICON_SVGS[kind as ToolIconKind]);
}
