import { forwardingAddress, listProjectAddresses, projectAddressToken, senderDomains } from '@loupe/connectors/email';
import type { Clock } from '@loupe/http';
import type { EmailForwardingView } from '@loupe/records';
import type { RequestHandler } from 'express';
import type pg from 'pg';

export interface EmailForwardingDeps {
  pool: pg.Pool;
  clock: Clock;
  /** The inbound mail domain when this service receives mail; undefined: forwarding is off. */
  inboundMailDomain?: string | undefined;
}

/**
 * GET /api/v1/email-forwarding: each project of the key's workspace with its forwarding address (made on first
 * read, as the console makes it), and the sender domains accepted. Everything is read by the key's workspace.
 */
export function emailForwardingHandler(deps: EmailForwardingDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      const workspaceId = req.principal!.workspaceId;
      const domain = deps.inboundMailDomain;
      let projects = await listProjectAddresses(deps.pool, workspaceId);
      if (domain && projects.some((p) => !p.token)) {
        const now = new Date(deps.clock.now());
        for (const p of projects.filter((x) => !x.token)) await projectAddressToken(deps.pool, workspaceId, p.projectId, now);
        projects = await listProjectAddresses(deps.pool, workspaceId);
      }
      const senders = await senderDomains(deps.pool, workspaceId);
      const body: EmailForwardingView = {
        enabled: !!domain,
        addresses: domain
          ? projects.filter((p) => p.token).map((p) => ({
            product_id: p.productId, product_name: p.productName, project_id: p.projectId, project_name: p.projectName, address: forwardingAddress(p.token!, domain),
          }))
          : [],
        sender_domains: senders.domains,
        sender_domains_from_members: senders.fromMembers,
      };
      res.json(body);
    } catch (error) {
      next(error);
    }
  };
}
