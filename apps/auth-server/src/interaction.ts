import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { doubleCsrf } from 'csrf-csrf';
import { randomUUID } from 'node:crypto';
import { bindGrantToWorkspace, createReplyAddress, grantableScopes, hasThirdPartyServers, SCOPE_DESCRIPTIONS, SCOPES, type Scope } from '@loupe/oauth';
import { WorkspaceLimitError } from '@loupe/accounts';
import type { IdentityProviderConfig } from '@loupe/config';
import type { Logger } from '@loupe/http';
import { clientView } from './client-view';
import { connectionConfirmation } from './mails';
import { renderErrorPage, renderPage } from './pages';
import { signedInUser, signIn, signOut } from '@loupe/web-pages';
import { codeProblem, codeRequestProblem } from './sign-in-problems';
import type { AuthRuntime } from './runtime';

type Runtime = () => Promise<AuthRuntime>;
export interface Mailer {
  send(message: { to: string; subject: string; text: string; html?: string; kind: string }): Promise<void>;
}

const csrfCookieName = (secure: boolean) => (secure ? '__Host-loupe_csrf' : 'loupe_csrf');

const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The pages of an authorization (spec 5.2): sign in by email code, choose or create the workspace,
 * consent. Every POST carries a CSRF token bound to the interaction; the workspace is asked on every
 * authorization and checked again when the consent is submitted.
 */
export function interactionPages(runtime: Runtime, deps: { mailer: Mailer; log: Logger; identityProviders?: readonly IdentityProviderConfig[]; replyDomain?: string | undefined }): Router {
  const router = Router();
  let csrf: ReturnType<typeof doubleCsrf> | undefined;
  const csrfFor = (rt: AuthRuntime) =>
    (csrf ??= doubleCsrf({
      getSecret: () => rt.csrfSecret,
      getSessionIdentifier: (req) => String(req.params.uid ?? ''),
      cookieName: csrfCookieName(rt.secure),
      cookieOptions: { sameSite: 'lax', path: '/', secure: rt.secure, httpOnly: true },
      getCsrfTokenFromRequest: (req) => (req.body as Record<string, unknown> | undefined)?._csrf as string | undefined,
    }));

  const page = (fn: (rt: AuthRuntime, req: Request, res: Response) => Promise<unknown>) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      const rt = await runtime();
      if (req.method === 'POST' && !csrfFor(rt).validateRequest(req)) {
        return renderErrorPage(res, 403, 'This page has expired', 'For your security this form can no longer be sent. Go back to the application and connect again.', 'invalid_csrf_token');
      }
      await fn(rt, req, res);
    } catch (error) {
      if ((error as { name?: string }).name === 'SessionNotFound') {
        return renderErrorPage(res, 400, 'This sign-in has expired', 'Authorization requests last 10 minutes. Go back to the application and connect again.', 'interaction_expired');
      }
      next(error);
    }
  };

  async function show(rt: AuthRuntime, req: Request, res: Response, extra: Record<string, unknown> = {}, status = 200) {
    const details = await rt.provider.interactionDetails(req, res);
    const uid = details.uid;
    const client = await rt.provider.Client.find(String(details.params.client_id));
    if (!client) return renderErrorPage(res, 400, 'Unknown application', 'The application that sent you here is no longer registered.', 'invalid_client');
    const view = clientView(client, rt.issuer, details.params.redirect_uri as string | undefined);
    const csrfToken = csrfFor(rt).generateCsrfToken(req, res, { overwrite: false, validateOnReuse: false });
    const base = { uid, client: view, csrf: csrfToken, ...extra };
    const user = await signedInUser(rt, req, res);
    if (!user) return renderPage(res, 'signin', { title: 'Sign in', providers: (deps.identityProviders ?? []).map(({ id, name }) => ({ id, name })), ...base }, status);
    const workspaces = await rt.accounts.workspacesOf(user.id);
    if (workspaces.length === 0) return renderPage(res, 'workspace-create', { title: 'Create your workspace', user, ...base }, status);
    const asked = str(req.query.workspace);
    const chosen = req.query.choose ? undefined : (workspaces.find((w) => w.id === asked) ?? (workspaces.length === 1 ? workspaces[0] : undefined));
    if (!chosen) return renderPage(res, 'workspace-choose', { title: 'Choose a workspace', user, workspaces, ...base }, status);
    const requested = new Set(grantableScopes(String(details.params.scope ?? ''), client.scope));
    const scopes = SCOPES.filter((s) => requested.has(s));
    return renderPage(res, 'consent', {
      title: `Connect ${view.name}`,
      user,
      workspace: chosen,
      canChangeWorkspace: workspaces.length > 1,
      permissions: scopes.map((s) => SCOPE_DESCRIPTIONS[s]).filter(Boolean),
      thirdParty: await hasThirdPartyServers(rt.pool, chosen.id),
      ...base,
    }, status);
  }

  router.get('/oauth/interaction/:uid', page((rt, req, res) => show(rt, req, res)));

  router.post('/oauth/interaction/:uid/email', form, page(async (rt, req, res) => {
    const email = str(req.body.email).trim();
    const sent = await rt.accounts.requestSignInCode({ email, ip: req.ip ?? 'unknown' });
    if (!sent.ok) {
      const error = codeRequestProblem(sent);
      return show(rt, req, res, { email, error }, sent.reason === 'invalid_email' ? 400 : 429);
    }
    const details = await rt.provider.interactionDetails(req, res);
    const client = await rt.provider.Client.find(String(details.params.client_id));
    renderPage(res, 'code', {
      title: 'Check your email',
      uid: details.uid,
      email: email.toLowerCase(),
      client: client ? clientView(client, rt.issuer, undefined) : undefined,
      csrf: csrfFor(rt).generateCsrfToken(req, res, { overwrite: false, validateOnReuse: false }),
    });
  }));

  router.post('/oauth/interaction/:uid/code', form, page(async (rt, req, res) => {
    const email = str(req.body.email).trim().toLowerCase();
    const result = await rt.accounts.verifySignInCode({ email, code: str(req.body.code) });
    const details = await rt.provider.interactionDetails(req, res);
    if (!result.ok) {
      const error = codeProblem(result);
      return renderPage(res, 'code', {
        title: 'Check your email',
        uid: details.uid,
        email,
        error,
        csrf: csrfFor(rt).generateCsrfToken(req, res, { overwrite: false, validateOnReuse: false }),
      }, 400);
    }
    await signIn(rt, req, res, result.user.id);
    res.redirect(303, `/oauth/interaction/${details.uid}`);
  }));

  router.post('/oauth/interaction/:uid/workspace', form, page(async (rt, req, res) => {
    const user = await signedInUser(rt, req, res);
    const details = await rt.provider.interactionDetails(req, res);
    if (!user) return res.redirect(303, `/oauth/interaction/${details.uid}`);
    const name = str(req.body.name).trim();
    if (name.length < 1 || name.length > 80) {
      return show(rt, req, res, { name, error: 'Give the workspace a name of 1 to 80 characters.' }, 400);
    }
    let workspace;
    try {
      workspace = await rt.accounts.createWorkspaceFor(user.id, name);
    } catch (error) {
      if (!(error instanceof WorkspaceLimitError)) throw error;
      if (error.retryAfterSeconds) res.setHeader('retry-after', String(error.retryAfterSeconds));
      return renderErrorPage(res, 429, 'No new workspace now', `${error.message} Go back to the application and connect again, choosing one of your workspaces.`, 'workspace_limit');
    }
    res.redirect(303, `/oauth/interaction/${details.uid}?workspace=${encodeURIComponent(workspace.id)}`);
  }));

  router.post('/oauth/interaction/:uid/signout', form, page(async (rt, req, res) => {
    await signOut(rt, req, res);
    res.redirect(303, `/oauth/interaction/${String(req.params.uid)}`);
  }));

  router.post('/oauth/interaction/:uid/consent', form, page(async (rt, req, res) => {
    const details = await rt.provider.interactionDetails(req, res);
    if (req.body.decision === 'deny') {
      return rt.provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user denied the authorization request' }, { mergeWithLastSubmission: false });
    }
    const user = await signedInUser(rt, req, res);
    if (!user) return res.redirect(303, `/oauth/interaction/${details.uid}`);
    const workspaceId = str(req.body.workspace);
    const workspace = (await rt.accounts.workspacesOf(user.id)).find((w) => w.id === workspaceId);
    if (!workspace) return show(rt, req, res, { error: 'Choose one of your workspaces.' }, 400);
    const clientId = String(details.params.client_id);
    const client = await rt.provider.Client.find(clientId);
    if (!client) return renderErrorPage(res, 400, 'Unknown application', 'The application that sent you here is no longer registered.', 'invalid_client');
    // The scopes checked again against the client as it is now (issue 23 item 6): the authorization
    // filter is not the only way into this page, and mcp:thirdparty is never an OAuth grant.
    const scopes = grantableScopes(String(details.params.scope ?? ''), client.scope);
    if (scopes.length === 0) {
      return rt.provider.interactionFinished(req, res, { error: 'invalid_scope', error_description: 'None of the requested scopes can be granted to this application' }, { mergeWithLastSubmission: false });
    }
    if (scopes.join(' ') !== String(details.params.scope ?? '')) {
      // The authorization resumes from the stored request: narrowed there too, or the provider finds the
      // grant short of what was asked and shows this page again.
      details.params.scope = scopes.join(' ');
      await details.save(details.exp - Math.floor(rt.clock.now() / 1000));
    }
    const grant = new rt.provider.Grant({ accountId: user.id, clientId });
    grant.addOIDCScope(scopes.join(' '));
    const grantId = await grant.save();
    const view = clientView(client, rt.issuer, details.params.redirect_uri as string | undefined);
    const thirdParty = str(req.body.third_party);
    const { firstConnection } = await bindGrantToWorkspace(rt.pool, {
      grantId,
      workspaceId,
      userId: user.id,
      clientId,
      clientName: view.name,
      scopes,
      thirdPartyAccess: thirdParty === 'including_third_party' || thirdParty === 'service_only' ? thirdParty : null,
    }, rt.clock);
    if (firstConnection) {
      let reply: { address: string; messageId: string } | undefined;
      if (deps.replyDomain) {
        const messageId = `<${randomUUID()}@${deps.replyDomain}>`;
        reply = { messageId, address: await createReplyAddress(rt.pool, { grantId, workspaceId, userId: user.id, messageId, domain: deps.replyDomain }, rt.clock) };
      }
      const mail = connectionConfirmation({
        to: user.email,
        applicationName: view.name,
        redirectHost: view.redirectHost,
        workspaceName: workspace.name,
        permissions: scopes.map((s) => SCOPE_DESCRIPTIONS[s as Scope]).filter(Boolean),
        at: new Date(rt.clock.now()),
        grantId,
        accountUrl: `${rt.issuer}/account/w/${workspaceId}/apps`,
        reply,
      });
      // The connection stands even if the mail server is down; the failure is logged.
      await deps.mailer.send(mail).catch((err: unknown) => deps.log.error({ err, grantId }, 'could not send the connection confirmation'));
    }
    await rt.provider.interactionFinished(req, res, { login: { accountId: user.id }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }));

  return router;
}
