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
    message: `${out.error_description ?? 'The application sent an invalid request.'} Go back to the application and try connecting again; if it keeps happening, tell its developer.`,
    code: out.error,
  });
}
