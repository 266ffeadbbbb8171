import { Router } from 'express';
import { InvalidWorkspaceNameError, MembershipError, WORKSPACE_NAME_MAX_LENGTH, WorkspaceLimitError } from '@loupe/accounts';
import { revokeUserGrants } from '@loupe/oauth/grants';
import { clearSessionCookie } from '@loupe/web-pages';
import { form, pages, renderAccount, str, type Runtime, type SignedIn } from './context';

/**
 * The account itself: its workspaces (one goes straight to its pages), creating a workspace, and
 * deleting the account (its keys revoked, its applications disconnected, the workspaces it alone
 * belonged to deleted; refused while it is the only owner of a shared workspace).
 */
export function homePages(runtime: Runtime): Router {
  const router = Router();
  const { signedIn } = pages(runtime);

  const showHome = async (ctx: SignedIn, res: Parameters<typeof renderAccount>[0], extra: Record<string, unknown> = {}, status = 200) => {
    const workspaces = await ctx.rt.accounts.workspacesOf(ctx.user.id);
    renderAccount(res, 'account-home', ctx, {
      title: 'Your account', workspaces, plan: await ctx.rt.accounts.accountDeletionPlan(ctx.user.id), max: WORKSPACE_NAME_MAX_LENGTH, ...extra,
    }, status);
  };

  router.get('/account', signedIn(async (ctx, req, res) => {
    const workspaces = await ctx.rt.accounts.workspacesOf(ctx.user.id);
    if (workspaces.length === 1 && !req.query.done && !req.query.all) return res.redirect(303, `/account/w/${workspaces[0]!.id}/keys`);
    return showHome(ctx, res, { done: str(req.query.done) });
  }));

  router.post('/account/workspaces', form, signedIn(async (ctx, req, res) => {
    try {
      const workspace = await ctx.rt.accounts.createWorkspaceFor(ctx.user.id, str(req.body.name));
      res.redirect(303, `/account/w/${workspace.id}/products?done=workspace-created`);
    } catch (error) {
      if (error instanceof InvalidWorkspaceNameError) return showHome(ctx, res, { error: `Give the workspace a name of 1 to ${WORKSPACE_NAME_MAX_LENGTH} characters.` }, 400);
      if (error instanceof WorkspaceLimitError) {
        if (error.retryAfterSeconds) res.setHeader('retry-after', String(error.retryAfterSeconds));
        return showHome(ctx, res, { error: error.message }, 429);
      }
      throw error;
    }
  }));

  router.post('/account/delete', form, signedIn(async (ctx, req, res) => {
    if (str(req.body.confirm).trim().toLowerCase() !== ctx.user.email.toLowerCase()) {
      return showHome(ctx, res, { deleteError: 'Type your email address exactly to confirm.' }, 400);
    }
    try {
      // Tokens first: once the user row is gone their grants are too, and nothing could revoke the tokens by grant.
      await revokeUserGrants(ctx.rt.pool, ctx.user.id, ctx.rt.clock);
      await ctx.rt.accounts.deleteAccount(ctx.user.id);
    } catch (error) {
      if (error instanceof MembershipError) return showHome(ctx, res, { deleteError: error.message }, 400);
      throw error;
    }
    clearSessionCookie(ctx.rt, res);
    res.redirect(303, '/account/sign-in?deleted=1');
  }));

  return router;
}
