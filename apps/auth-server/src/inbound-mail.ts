import { timingSafeEqual } from 'node:crypto';
import express, { Router } from 'express';
import type pg from 'pg';
import type { Clock, Logger } from '@loupe/http';
import { normaliseAddress, parseInboundMail, type InboundMail } from '@loupe/mail';
import { revokeByReply, type ReplyOutcome } from '@loupe/oauth';
import type { Mailer } from './interaction';
import { revocationConfirmation } from './mails';

export interface InboundDeps {
  pool: pg.Pool;
  clock: Clock;
  mailer: Mailer;
  log: Logger;
  /** The domain of the reply addresses. */
  domain: string;
}

/**
 * What a reply to a confirmation mail does, whichever way it arrives (the SMTP receiver or the
 * webhook): the rule of libs/oauth, then a short mail saying the application was disconnected.
 */
export function inboundReplyHandler(deps: InboundDeps) {
  return async (mail: InboundMail): Promise<ReplyOutcome['outcome']> => {
    const result = await revokeByReply(deps.pool, mail, { domain: deps.domain, clock: deps.clock });
    deps.log.info({ outcome: result.outcome, from: mail.from }, 'reply to a confirmation mail');
    if (result.outcome === 'revoked' && result.userEmail) {
      const { rows } = await deps.pool.query<{ client_name: string; name: string }>(
        'SELECT g.client_name, w.name FROM oauth_grants g JOIN workspaces w ON w.id = g.workspace_id WHERE g.grant_id = $1',
        [result.grantId],
      );
      const about = rows[0];
      await deps.mailer.send(revocationConfirmation({
        to: result.userEmail, applicationName: about?.client_name ?? 'The application', workspaceName: about?.name ?? 'your workspace', at: new Date(deps.clock.now()),
      })).catch((err: unknown) => deps.log.error({ err, grantId: result.grantId }, 'could not send the revocation confirmation'));
    }
    return result.outcome;
  };
}

interface PostmarkInbound {
  From?: string;
  FromFull?: { Email?: string };
  To?: string;
  ToFull?: Array<{ Email?: string }>;
  Cc?: string;
  CcFull?: Array<{ Email?: string }>;
  OriginalRecipient?: string;
  Subject?: string;
  TextBody?: string;
  Headers?: Array<{ Name?: string; Value?: string }>;
}

const emails = (list: Array<{ Email?: string }> | undefined) => (list ?? []).map((a) => a.Email && normaliseAddress(a.Email)).filter((a): a is string => !!a);

/** Postmark's inbound JSON (the shape hosted inbound-mail services post) as an InboundMail. */
function fromPostmark(body: PostmarkInbound): InboundMail {
  const header = (name: string) => body.Headers?.find((h) => h.Name?.toLowerCase() === name)?.Value;
  return {
    to: [...new Set([...emails(body.ToFull), ...emails(body.CcFull), ...(body.OriginalRecipient ? [normaliseAddress(body.OriginalRecipient)] : [])])],
    from: body.FromFull?.Email?.toLowerCase() ?? body.From?.toLowerCase(),
    inReplyTo: header('in-reply-to'),
    references: (header('references') ?? '').split(/\s+/).filter(Boolean),
    subject: body.Subject ?? '',
    text: body.TextBody ?? '',
  };
}

/**
 * `POST /inbound/mail`: the webhook of a hosted inbound-mail service, protected by a shared secret
 * (`Authorization: Bearer <INBOUND_MAIL_SECRET>`). Takes the raw message (`message/rfc822` or
 * `text/plain`) or Postmark's inbound JSON; answers 200 with the outcome for any well-formed
 * message, so the service does not retry one that revokes nothing.
 */
export function inboundMailWebhook(handle: (mail: InboundMail) => Promise<string>, secret: string | undefined): Router {
  const router = Router();
  router.post('/inbound/mail', express.raw({ type: ['message/rfc822', 'text/plain'], limit: '1mb' }), express.json({ limit: '1mb' }), async (req, res, next) => {
    try {
      if (!secret) return void res.status(404).json({ error: 'NOT_FOUND', message: 'No inbound mail webhook is configured (INBOUND_MAIL_SECRET)' });
      const given = Buffer.from(/^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '');
      const expected = Buffer.from(secret);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return void res.status(401).json({ error: 'UNAUTHORIZED', message: 'Send the webhook secret as Authorization: Bearer <INBOUND_MAIL_SECRET>' });
      }
      let mail: InboundMail;
      if (Buffer.isBuffer(req.body) && req.body.length) mail = await parseInboundMail(req.body);
      else if (req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body) && ('To' in req.body || 'ToFull' in req.body)) mail = fromPostmark(req.body as PostmarkInbound);
      else return void res.status(400).json({ error: 'INVALID_BODY', message: 'Send the raw message (message/rfc822) or Postmark inbound JSON' });
      res.json({ outcome: await handle(mail) });
    } catch (error) {
      next(error);
    }
  });
  return router;
}
