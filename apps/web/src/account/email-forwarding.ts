import { canManage } from '@loupe/accounts';
import { forwardingAddress, listProjectAddresses, parseDomainList, projectAddressToken, senderDomains, setSenderDomains } from '@loupe/connectors/email';
import { Router, type Response } from 'express';
import { form, pages, renderAccount, str, type AccountDeps, type InWorkspace, type Runtime } from './context';

/**
 * Email forwarding (issue 45): each project's inbound address (made when first shown, with a copy button; owners
 * and admins may replace it, which stops the old one), and the sender domains the workspace accepts forwarded
 * mail from (its members' domains until an owner or admin sets a list). Off when the server receives no mail.
 */
export function emailForwardingPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);
  const domain = deps.inboundMailDomain;

  const show = async (ctx: InWorkspace, res: Response, extra: Record<string, unknown> = {}, status = 200) => {
    const now = new Date(ctx.rt.clock.now());
    let projects = await listProjectAddresses(ctx.rt.pool, ctx.workspace.id);
    if (domain && projects.some((p) => !p.token)) {
      for (const p of projects.filter((x) => !x.token)) await projectAddressToken(ctx.rt.pool, ctx.workspace.id, p.projectId, now);
      projects = await listProjectAddresses(ctx.rt.pool, ctx.workspace.id);
    }
    const products = new Map<string, { id: string; name: string; projects: Array<{ id: string; name: string; address: string | undefined }> }>();
    for (const p of projects) {
      const product = products.get(p.productId) ?? { id: p.productId, name: p.productName, projects: [] };
      product.projects.push({ id: p.projectId, name: p.projectName, address: domain && p.token ? forwardingAddress(p.token, domain) : undefined });
      products.set(p.productId, product);
    }
    const senders = await senderDomains(ctx.rt.pool, ctx.workspace.id);
    renderAccount(res, 'account-email-forwarding', ctx, {
      title: 'Email forwarding', section: 'email-forwarding', manager: canManage(ctx.workspace.role), enabled: !!domain,
      products: [...products.values()], senders, ...extra,
    }, status);
  };

  router.get('/account/w/:ws/email-forwarding', inWorkspace((ctx, req, res) => show(ctx, res, { done: str(req.query.done) })));

  router.post('/account/w/:ws/email-forwarding/domains', form, inWorkspace(async (ctx, req, res) => {
    if (!canManage(ctx.workspace.role)) return show(ctx, res, { error: 'Only owners and admins can change which senders may forward mail.' }, 403);
    const text = str(req.body.domains);
    const parsed = parseDomainList(text.slice(0, 20_000));
    if ('error' in parsed) return show(ctx, res, { error: `${parsed.error}.`, typed: text.slice(0, 20_000) }, 400);
    await setSenderDomains(ctx.rt.pool, ctx.workspace.id, parsed.domains, new Date(ctx.rt.clock.now()));
    res.redirect(303, `/account/w/${ctx.workspace.id}/email-forwarding?done=${parsed.domains.length ? 'domains' : 'members'}`);
  }));

  router.post('/account/w/:ws/email-forwarding/projects/:project/rotate', form, inWorkspace(async (ctx, req, res) => {
    if (!canManage(ctx.workspace.role)) return show(ctx, res, { error: 'Only owners and admins can replace a forwarding address.' }, 403);
    if (!domain) return show(ctx, res, { error: 'This server receives no mail, so it has no forwarding addresses.' }, 409);
    const token = await projectAddressToken(ctx.rt.pool, ctx.workspace.id, String(req.params.project), new Date(ctx.rt.clock.now()), { rotate: true });
    if (!token) return show(ctx, res, { error: 'That project does not exist (any more).' }, 404);
    res.redirect(303, `/account/w/${ctx.workspace.id}/email-forwarding?done=rotated`);
  }));

  return router;
}
