import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Response } from 'express';
import { Eta } from 'eta';

/** The layout and the error page every app's pages share (one look). */
export const sharedViewsDir = path.resolve(import.meta.dirname, '../views');

/**
 * Server-rendered pages from an app's own templates, which find the shared ones (`./layout`,
 * `./error`) beside them: a template is looked up in the app's views first, then in the shared views.
 * Eta escapes every `<%= %>` by default; templates are cached after the first render.
 */
export function createPageRenderer(viewsDir: string) {
  const eta = new Eta({ views: viewsDir, cache: true, autoEscape: true });
  const resolved = new Map<string, string>(); // looked up once per template, not on every render
  eta.resolvePath = (template) => {
    const known = resolved.get(template);
    if (known) return known;
    const name = path.normalize(path.extname(template) ? template : `${template}.eta`).replace(/^[/\\]+/, '');
    if (name.startsWith('..')) throw new Error(`Template '${template}' is not in the views directories`);
    const found = [viewsDir, sharedViewsDir].map((dir) => path.join(dir, name)).find((file) => existsSync(file));
    if (found) resolved.set(template, found);
    return found ?? path.join(viewsDir, name);
  };

  const render = (view: string, data: Record<string, unknown>) => eta.render(`./${view}`, data);

  function renderPage(res: Response, view: string, data: Record<string, unknown>, status = 200) {
    res.status(status).setHeader('cache-control', 'no-store').type('html').send(render(view, data));
  }

  function renderErrorPage(res: Response, status: number, heading: string, message: string, code?: string) {
    renderPage(res, 'error', { title: heading, heading, message, code }, status);
  }

  return { render, renderPage, renderErrorPage };
}

export type PageRenderer = ReturnType<typeof createPageRenderer>;
