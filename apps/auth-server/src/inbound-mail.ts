import { createHash, timingSafeEqual } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
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
        'SELECT g.client_name, w.name FROM oauth_grants g JOIN workspaces w ON w.id = g.workspace_id WHERE g.grant_id = $1 AND g.workspace_id = $2 AND g.user_id = $3',
        [result.grantId, result.workspaceId, result.userId],
      );
      const about = rows[0];
      await deps.mailer.send(revocationConfirmation({
        to: result.userEmail, applicationName: about?.client_name ?? 'The application', workspaceName: about?.name ?? 'your workspace', at: new Date(deps.clock.now()),
      })).catch((err: unknown) => deps.log.error({ err, grantId: result.grantId }, 'could not send the revocation confirmation'));
    }
    return result.outcome;
  };
}

/**
 * Postmark's inbound JSON (https://postmarkapp.com/developer/webhooks/inbound-webhook), the fields
 * used here. Read as unknown: a field of the wrong type is ignored, never a 500.
 */
interface PostmarkInbound {
  From?: unknown;
  FromFull?: unknown;
  To?: unknown;
  ToFull?: unknown;
  Cc?: unknown;
  CcFull?: unknown;
  Bcc?: unknown;
  BccFull?: unknown;
  OriginalRecipient?: unknown;
  Subject?: unknown;
  TextBody?: unknown;
  Headers?: unknown;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const field = (v: unknown, name: string): unknown => (v && typeof v === 'object' ? (v as Record<string, unknown>)[name] : undefined);
/** The Email of each entry of a ToFull/CcFull/BccFull list. */
const emails = (list: unknown): string[] => (Array.isArray(list) ? list : []).map((a) => str(field(a, 'Email'))).filter((a): a is string => !!a?.includes('@')).map(normaliseAddress);
/** The addresses of a header value such as `"Ada" <ada@x.test>, bo@y.test` (Postmark's To, Cc, Bcc strings). */
const headerEmails = (value: unknown): string[] => (str(value)?.match(/[^\s<>,;"]+@[^\s<>,;"]+/g) ?? []).map(normaliseAddress);
/** The parsed list when Postmark sent one, else the addresses of the plain header. */
const recipients = (full: unknown, plain: unknown) => (Array.isArray(full) && full.length ? emails(full) : headerEmails(plain));

/** Postmark's inbound JSON (the shape hosted inbound-mail services post) as an InboundMail. */
function fromPostmark(body: PostmarkInbound): InboundMail {
  const headers = Array.isArray(body.Headers) ? body.Headers : [];
  const header = (name: string) => str(field(headers.find((h) => str(field(h, 'Name'))?.toLowerCase() === name), 'Value'));
  return {
    to: [...new Set([
      ...recipients(body.ToFull, body.To), ...recipients(body.CcFull, body.Cc), ...recipients(body.BccFull, body.Bcc),
      ...headerEmails(body.OriginalRecipient),
    ])],
    from: (str(field(body.FromFull, 'Email')) ?? headerEmails(body.From)[0])?.trim().toLowerCase(),
    inReplyTo: header('in-reply-to')?.trim(),
    references: (header('references') ?? '').split(/\s+/).filter(Boolean),
    subject: str(body.Subject) ?? '',
    text: str(body.TextBody) ?? '',
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
  // Compared as SHA-256 digests: equal lengths, so timingSafeEqual says nothing about the secret's length either.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const expected = secret ? digest(secret) : undefined;
  // Before any body is read: without the secret nothing is parsed.
  const authorize = (req: Request, res: Response, next: NextFunction) => {
    if (!expected) return void res.status(404).json({ error: 'NOT_FOUND', message: 'No inbound mail webhook is configured (INBOUND_MAIL_SECRET)' });
    const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    if (!given || !timingSafeEqual(digest(given), expected)) {
      return void res.status(401).json({ error: 'UNAUTHORIZED', message: 'Send the webhook secret as Authorization: Bearer <INBOUND_MAIL_SECRET>' });
    }
    next();
  };
  router.post('/inbound/mail', authorize, express.raw({ type: ['message/rfc822', 'text/plain'], limit: '1mb' }), express.json({ limit: '1mb' }), async (req, res, next) => {
    try {
      let mail: InboundMail;
      if (Buffer.isBuffer(req.body) && req.body.length) mail = await parseInboundMail(req.body);
      else if (req.body && typeof req.body === 'object' && !Array.isArray(req.body) && !Buffer.isBuffer(req.body) && ('To' in req.body || 'ToFull' in req.body)) mail = fromPostmark(req.body as PostmarkInbound);
      else return void res.status(400).json({ error: 'INVALID_BODY', message: 'Send the raw message (message/rfc822 or text/plain) or Postmark inbound JSON (with To or ToFull)' });
      res.json({ outcome: await handle(mail) });
    } catch (error) {
      next(error);
    }
  });
  // The body parsers' own refusals, said precisely; anything else goes on to the service's handler.
  router.use('/inbound/mail', (error: { type?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (error?.type === 'entity.too.large') return void res.status(413).json({ error: 'PAYLOAD_TOO_LARGE', message: 'An inbound message may be at most 1 MB' });
    if (error?.type === 'entity.parse.failed' || error?.type === 'encoding.unsupported' || error?.type === 'charset.unsupported') {
      return void res.status(400).json({ error: 'INVALID_BODY', message: 'The body is not a readable message or JSON document' });
    }
    next(error);
  });
  return router;
}
