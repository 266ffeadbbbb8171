export { createMailer, MailError, type MailLogger, type Mailer, type MailerOptions, type MailMessage } from './mailer';
export { listOutbox, DEFAULT_OUTBOX_LIMIT, type ListOutboxOptions, type OutboxMessage } from './outbox';
export { InboundRefusal, normaliseAddress, parseInboundMail, startInboundSmtp, type InboundMail, type InboundSmtp } from './inbound';
