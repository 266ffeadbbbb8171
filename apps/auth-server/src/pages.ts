import path from 'node:path';
import { createPageRenderer } from '@loupe/web-pages';

/** The authorization server's pages (sign-in, workspace, consent), in the layout every page shares. */
const pages = createPageRenderer(path.resolve(import.meta.dirname, '../views'));

export const { renderPage, renderErrorPage } = pages;

/** The error page oidc-provider shows when it cannot send the error back to the client (bad client_id or redirect_uri). */
export function renderOAuthErrorHtml(out: { error: string; error_description?: string }): string {
  return pages.render('error', {
    title: 'This connection cannot continue',
    heading: 'This connection cannot continue',
    message: 'The application that sent you here made a request Loupe cannot accept. Go back to it and try connecting again; if it keeps happening, tell its developer.',
    detail: out.error_description ? `${out.error_description.charAt(0).toUpperCase()}${out.error_description.slice(1)}.` : undefined,
    code: out.error,
  });
}
