import { newId } from '@loupe/db';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type pg from 'pg';

/** One message to one person. `kind` names what it is ('sign-in-code', 'connection-confirmation'…) for the outbox and the logs. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  kind: string;
  /** Where replies go (a per-connection revocation address), and the Message-ID to give the mail. */
  replyTo?: string;
  messageId?: string;
  /**
   * What a person needs from this mail when no mail server is configured (the sign-in code): logged by
   * the local outbox only, so that someone on this machine can sign in; never logged when the mail goes
   * through SMTP. Nothing else of a message (subject, body, links, reply address) is ever logged.
   */
  localOnly?: Record<string, string>;
}

export interface Mailer {
  /** Sends the message (SMTP) or stores it in the local outbox; rejects with a MailError saying what went wrong. */
  send(message: MailMessage): Promise<void>;
}

/** The part of a pino logger the mailer uses. */
export interface MailLogger {
  info(obj: Record<string, unknown>, msg: string): void;
}

export interface MailerOptions {
  /** smtp:// or smtps:// URL of the server that delivers mail; without it mail goes to the local outbox. */
  smtpUrl?: string | undefined;
  /** The From header, e.g. `Loupe <no-reply@loupe.localhost>`. */
  from: string;
  /** Where the local outbox lives (table mail_outbox). */
  pool: pg.Pool;
  log: MailLogger;
  /** When outbox messages are stamped (milliseconds); Date.now by default. */
  clock?: { now(): number } | undefined;
}

export class MailError extends Error {
  override name = 'MailError';
}

// Defaults for a server that accepts the connection and then says nothing; the URL's own query wins.
const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };

/**
 * The mailer of the service. With `smtpUrl`, messages go through nodemailer's SMTP transport and
 * only their recipient, kind and message id are logged. Without it (the embedded default, no mail
 * server), nodemailer renders each message and it is stored in the `mail_outbox` table, where the
 * admin CLI reads it (`npm run admin -- mail list`); the log line names recipient, kind and outbox id,
 * plus the message's `localOnly` facts (the sign-in code, so that a person on a fresh machine can sign
 * in from the log), and says so. Subjects, bodies, links and reply addresses are never logged: they
 * carry free text and secrets (invitation links, revoke+<token> addresses).
 */
export function createMailer(options: MailerOptions): Mailer {
  return options.smtpUrl ? smtpMailer(options.smtpUrl, options) : outboxMailer(options);
}

function checkMessage(message: MailMessage): void {
  if (!message.to?.trim()) throw new MailError(`The ${message.kind || 'mail'} message has no recipient`);
  if (!message.kind?.trim()) throw new MailError(`The message to ${message.to} has no kind`);
  if (!message.subject?.trim()) throw new MailError(`The ${message.kind} message to ${message.to} has no subject`);
}

function mailOptions(from: string, m: MailMessage): SendMailOptions {
  return {
    from, to: m.to, subject: m.subject, text: m.text,
    ...(m.html !== undefined ? { html: m.html } : {}),
    ...(m.replyTo ? { replyTo: m.replyTo } : {}),
    ...(m.messageId ? { messageId: m.messageId } : {}),
  };
}

/** The server an SMTP URL names, without its credentials. */
function serverOf(smtpUrl: string): string {
  try {
    const url = new URL(smtpUrl);
    return `${url.protocol}//${url.host}`;
  } catch {
    return 'the SMTP server';
  }
}

function smtpMailer(smtpUrl: string, { from, log }: MailerOptions): Mailer {
  const transport = nodemailer.createTransport({ ...SMTP_TIMEOUTS, url: smtpUrl });
  const server = serverOf(smtpUrl);
  return {
    async send(message) {
      checkMessage(message);
      let info: { messageId?: string; response?: string };
      try {
        info = await transport.sendMail(mailOptions(from, message));
      } catch (error) {
        throw new MailError(
          `Could not send the ${message.kind} mail to ${message.to} through ${server}: ${(error as Error).message}`,
          { cause: error },
        );
      }
      // Never the subject, the body or the reply address: they may hold a code, a link or a token.
      log.info({ to: message.to, kind: message.kind, messageId: info.messageId, server }, 'mail sent');
    },
  };
}

interface RenderedMessage {
  subject?: string;
  text?: string;
  html?: string;
}

function outboxMailer({ from, pool, log, clock = { now: Date.now } }: MailerOptions): Mailer {
  // Renders the message as nodemailer would send it (addresses parsed, headers checked), as JSON.
  const renderer = nodemailer.createTransport({ jsonTransport: true });
  return {
    async send(message) {
      checkMessage(message);
      let rendered: RenderedMessage;
      let recipients: string[];
      try {
        const info = await renderer.sendMail(mailOptions(from, message));
        rendered = JSON.parse(info.message) as RenderedMessage;
        recipients = info.envelope.to ?? [];
      } catch (error) {
        throw new MailError(`Could not render the ${message.kind} mail to ${message.to}: ${(error as Error).message}`, { cause: error });
      }
      if (!recipients.length) throw new MailError(`No valid recipient address in ${JSON.stringify(message.to)}`);
      const to = recipients.join(', ');
      const subject = rendered.subject ?? message.subject;
      const text = rendered.text ?? message.text;
      const now = clock.now();
      const id = newId('mail', now);
      await pool.query(
        'INSERT INTO mail_outbox (id, to_address, subject, kind, text_body, html_body, reply_to, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [id, to, subject, message.kind, text, rendered.html ?? null, message.replyTo ?? null, new Date(now)],
      );
      const local = message.localOnly && Object.keys(message.localOnly).length ? message.localOnly : undefined;
      log.info(
        { to, kind: message.kind, id, ...local },
        local
          ? `mail written to the local outbox; no SMTP_URL is set, so this line shows its ${Object.keys(local).join(', ')} for signing in on this machine (with SMTP_URL it is mailed and never logged)`
          : 'mail written to the local outbox (read it with npm run admin -- mail list)',
      );
    },
  };
}
