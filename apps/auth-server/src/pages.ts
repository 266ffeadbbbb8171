import path from 'node:path';
import type { Response } from 'express';
import { Eta } from 'eta';

const viewsDir = path.resolve(import.meta.dirname, '../views');
// Eta escapes every `<%= %>` by default; templates are cached after the first render.
const eta = new Eta({ views: viewsDir, cache: true, autoEscape: true });

export const assetsDir = path.resolve(import.meta.dirname, '../assets');

export function renderPage(res: Response, view: string, data: Record<string, unknown>, status = 200) {
  const html = eta.render(`./${view}`, data);
  res.status(status).setHeader('cache-control', 'no-store').type('html').send(html);
}

export function renderErrorPage(res: Response, status: number, heading: string, message: string, code?: string) {
  renderPage(res, 'error', { title: heading, heading, message, code }, status);
}

/** The error page oidc-provider shows when it cannot send the error back to the client (bad client_id or redirect_uri). */
export function renderOAuthErrorHtml(out: { error: string; error_description?: string }): string {
  return eta.render('./error', {
    title: 'This connection cannot continue',
    heading: 'This connection cannot continue',
    message: 'The application that sent you here made a request Loupe cannot accept. Go back to it and try connecting again; if it keeps happening, tell its developer.',
    detail: out.error_description ? `${out.error_description.charAt(0).toUpperCase()}${out.error_description.slice(1)}.` : undefined,
    code: out.error,
  });
}
