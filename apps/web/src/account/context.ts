import type { Request, Response } from 'express';
import express from 'express';
import type { Mailer, Role } from '@loupe/accounts';
import type { Db } from '@loupe/db';
import type { Logger } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import { createSessionCsrf, formPages, signedInUser } from '@loupe/web-pages';
import { renderErrorPage, renderPage } from '../pages';
import type { WebRuntime } from '../runtime';
import { fmt } from './format';
import type { SemanticSearch } from '@loupe/sources';
import type { Storage } from '@loupe/storage';
import { quoteMarks } from './quote-marks';

export type Runtime = () => Promise<WebRuntime>;

export interface AccountDeps {
  db: Db;
  mailer: Mailer;
  log: Logger;
  /**
   * Queues the product's opportunities to be brought up to date (after an edit changed a signal's
   * text); without it the worker picks the pending signals up at its next start or job.
   */
  scheduleRecompute?: ((workspaceId: string, productId: string) => Promise<void>) | undefined;
  /** The job queue: the Privacy page queues erasures (libs/erasure) with it. */
  boss?: Boss | undefined;
  /**
   * The index of meaning find_sources uses, when this process has one (npm start shares the MCP
   * server's): the sources page then ranks like the tool; without it, by the words alone.
   */
  semanticSearch?: SemanticSearch | undefined;
  /** Where attachment files are stored: deleting a source deletes its files. */
  storage: Storage;
  /** The largest file the File import page takes (MAX_UPLOAD_BYTES, 256 MB, by default). */
  importMaxBytes?: number | undefined;
  /** The domain of the inbound mail server (MAIL_REPLY_DOMAIN) when it receives mail: projects' forwarding addresses are there. */
  inboundMailDomain?: string | undefined;
}

export interface SignedIn {
  rt: WebRuntime;
  user: { id: string; email: string };
  csrf: string;
}

export interface InWorkspace extends SignedIn {
  workspace: { id: string; name: string; role: Role };
  workspaces: Array<{ id: string; name: string; role: Role }>;
}

export const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 40 });
export const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Where a signed-out visitor is sent: the sign-in page (the authorization server's), coming back here after. */
export function toSignIn(req: Request, res: Response) {
  res.redirect(303, `/account/sign-in?return_to=${encodeURIComponent(returnHere(req))}`);
}

/**
 * This page's address to come back to after sign-in; the account home when it is long (a 12 KB query
 * would become a Location header over the 16 KB most HTTP clients read).
 */
export function returnHere(req: Request): string {
  return req.originalUrl.length <= 2048 ? req.originalUrl : '/account';
}

type Handler<C> = (ctx: C, req: Request, res: Response) => Promise<unknown>;

/**
 * Wraps a page handler: the runtime, CSRF on every POST, errors to the error page. `signedIn`
 * also requires a web session; `inWorkspace` also requires membership of `:ws` (another
 * workspace's pages answer 404, never revealing it exists).
 */
export function pages(runtime: Runtime) {
  const csrf = createSessionCsrf();
  const base = formPages(runtime, csrf, renderErrorPage);
  const signedIn = (fn: Handler<SignedIn>) => base(async (rt, req, res) => {
    const user = await signedInUser(rt, req, res);
    if (!user) return toSignIn(req, res);
    return fn({ rt, user, csrf: csrf.token(rt, req, res) }, req, res);
  });
  const inWorkspace = (fn: Handler<InWorkspace>) => signedIn(async (ctx, req, res) => {
    const workspaces = await ctx.rt.accounts.workspacesOf(ctx.user.id);
    const workspace = workspaces.find((w) => w.id === req.params.ws);
    if (!workspace) return renderErrorPage(res, 404, 'Workspace not found', 'You are not a member of this workspace, or it does not exist. Choose one of yours from your account page.', 'not_found');
    return fn({ ...ctx, workspace, workspaces }, req, res);
  });
  return { base, signedIn, inWorkspace, csrfToken: csrf.token };
}

/** The workspace's evidence, read and corrected by its people (issue 27). */
export const EVIDENCE_SECTIONS = [
  { id: 'opportunities', label: 'Opportunities' },
  { id: 'companies', label: 'Companies' },
  { id: 'signals', label: 'Signals' },
  { id: 'sources', label: 'Sources' },
  { id: 'notes', label: 'Shaping notes' },
] as const;

export const SECTIONS = [
  { id: 'keys', label: 'API keys' },
  { id: 'members', label: 'Members' },
  { id: 'apps', label: 'Connected applications' },
  { id: 'products', label: 'Products and projects' },
  { id: 'usage', label: 'Credits and usage' },
  { id: 'privacy', label: 'Privacy' },
  { id: 'retention', label: 'Data retention' },
  { id: 'connections', label: 'Connections' },
  { id: 'import', label: 'File import' },
  { id: 'email-forwarding', label: 'Email forwarding' },
] as const;

/** Renders a page of the account app, with its navigation. */
export function renderAccount(res: Response, view: string, ctx: SignedIn & Partial<InWorkspace>, data: Record<string, unknown>, status = 200) {
  renderPage(res, view, {
    user: ctx.user, csrf: ctx.csrf, workspace: ctx.workspace, workspaces: ctx.workspaces ?? [], sections: SECTIONS, evidenceSections: EVIDENCE_SECTIONS, fmt, marks: quoteMarks, ...data,
  }, status);
}
