import { Router } from 'express';
import { canManage, InvitationLimitError, MembershipError, ROLES, type Role } from '@loupe/accounts';
import { revokeUserGrants } from '@loupe/oauth/grants';
import { renderErrorPage, renderPage } from '../pages';
import { form, pages, renderAccount, returnHere, str, toSignIn, type AccountDeps, type InWorkspace, type Runtime } from './context';
import { signedInUser } from '@loupe/web-pages';
import { invitationMail } from './mails';

const DONE: Record<string, string> = {
  invited: 'Invitation sent.',
  role: 'Role changed.',
  removed: 'Removed. Their API keys in this workspace were revoked, their pending invitations cancelled and their applications disconnected.',
  cancelled: 'Invitation cancelled.',
};

/**
 * Members: everyone sees who belongs; owners and admins invite, change roles and remove. Removal
 * ends the person's access at once: their keys here are revoked, their OAuth grants here revoked
 * (token families included), and every check asks for the membership anyway (spec 5.6 rule 4, 5.7 rule 2).
 */
export function memberPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace, base, csrfToken } = pages(runtime);

  const show = async (ctx: InWorkspace, res: Parameters<typeof renderAccount>[0], extra: Record<string, unknown> = {}, status = 200) => {
    const manager = canManage(ctx.workspace.role);
    renderAccount(res, 'account-members', ctx, {
      title: 'Members', section: 'members', manager, owner: ctx.workspace.role === 'owner', roles: ROLES,
      members: await ctx.rt.accounts.listMembers(ctx.workspace.id),
      invitations: manager ? await ctx.rt.accounts.pendingInvitations(ctx.workspace.id) : [],
      ...extra,
    }, status);
  };
  const attempt = async (ctx: InWorkspace, res: Parameters<typeof renderAccount>[0], work: () => Promise<string>) => {
    try {
      res.redirect(303, await work());
    } catch (error) {
      if (error instanceof InvitationLimitError) {
        if (error.retryAfterSeconds) res.setHeader('retry-after', String(error.retryAfterSeconds));
        return show(ctx, res, { error: error.message }, 429);
      }
      if (error instanceof MembershipError) return show(ctx, res, { error: error.message }, 400);
      throw error;
    }
  };

  router.get('/account/w/:ws/members', inWorkspace((ctx, req, res) => show(ctx, res, { done: DONE[str(req.query.done)] })));

  router.post('/account/w/:ws/members/invite', form, inWorkspace((ctx, req, res) => attempt(ctx, res, async () => {
    const role = (ROLES.includes(str(req.body.role) as Role) ? str(req.body.role) : 'member') as Role;
    const { token, invitation } = await ctx.rt.accounts.invite(ctx.workspace.id, ctx.user.id, str(req.body.email), role);
    await deps.mailer.send(invitationMail({
      to: invitation.email, workspaceName: ctx.workspace.name, invitedBy: ctx.user.email, role,
      link: `${ctx.rt.issuer}/account/invitations/${token}`, expiresAt: invitation.expiresAt,
    }));
    return `/account/w/${ctx.workspace.id}/members?done=invited`;
  })));

  router.post('/account/w/:ws/members/:userId/role', form, inWorkspace((ctx, req, res) => attempt(ctx, res, async () => {
    await ctx.rt.accounts.changeRole(ctx.workspace.id, ctx.user.id, String(req.params.userId), str(req.body.role) as Role);
    return `/account/w/${ctx.workspace.id}/members?done=role`;
  })));

  router.post('/account/w/:ws/members/:userId/remove', form, inWorkspace((ctx, req, res) => attempt(ctx, res, async () => {
    const target = String(req.params.userId);
    await ctx.rt.accounts.removeMember(ctx.workspace.id, ctx.user.id, target);
    await revokeUserGrants(ctx.rt.pool, target, ctx.rt.clock, ctx.workspace.id);
    return target === ctx.user.id ? '/account?done=left' : `/account/w/${ctx.workspace.id}/members?done=removed`;
  })));

  router.post('/account/w/:ws/invitations/:id/cancel', form, inWorkspace((ctx, req, res) => attempt(ctx, res, async () => {
    await ctx.rt.accounts.cancelInvitation(ctx.workspace.id, ctx.user.id, String(req.params.id));
    return `/account/w/${ctx.workspace.id}/members?done=cancelled`;
  })));

  // The link in the invitation mail: sign in (or create the account) as the invited address, then join.
  router.get('/account/invitations/:token', base(async (rt, req, res) => {
    const token = String(req.params.token);
    const about = await rt.accounts.describeInvitation(token);
    if (!about || !about.usable) {
      return renderErrorPage(res, 410, 'This invitation cannot be used', 'It was already used, it has expired (invitations last 7 days), or it was cancelled. Ask the person who invited you to send a new one.', 'invitation_unusable');
    }
    const user = await signedInUser(rt, req, res);
    if (!user) return res.redirect(303, `/account/sign-in?return_to=${encodeURIComponent(returnHere(req))}&email=${encodeURIComponent(about.email)}`);
    renderPage(res, 'account-invitation', { title: `Join ${about.workspaceName}`, user, csrf: csrfToken(rt, req, res), token, about, wrongEmail: user.email !== about.email });
  }));

  router.post('/account/invitations/:token', form, base(async (rt, req, res) => {
    const user = await signedInUser(rt, req, res);
    if (!user) return toSignIn(req, res);
    const result = await rt.accounts.acceptInvitation(String(req.params.token), user);
    if (!result.ok) {
      const message = result.reason === 'other_email'
        ? `This invitation is for ${result.email}. Sign out and sign in with that address to accept it.`
        : 'It was already used, it has expired, or it was cancelled. Ask for a new invitation.';
      return renderErrorPage(res, result.reason === 'other_email' ? 403 : 410, 'This invitation cannot be accepted', message, `invitation_${result.reason}`);
    }
    res.redirect(303, `/account/w/${result.workspaceId}/keys?done=joined`);
  }));

  return router;
}
