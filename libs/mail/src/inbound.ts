import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** An inbound mail as the reply rules need it: every recipient, the sender, and what it answers. */
export interface InboundMail {
  to: string[];
  from: string | undefined;
  inReplyTo: string | undefined;
  references: string[];
  subject: string;
  text: string;
}

/** An address with its domain in lower case; the local part keeps its case (reply tokens are case-sensitive). */
export function normaliseAddress(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? address.trim() : `${address.slice(0, at).trim()}@${address.slice(at + 1).trim().toLowerCase()}`;
}

const addresses = (field: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) => a.value.map((v) => v.address && normaliseAddress(v.address)).filter((v): v is string => !!v));

/** Parses a raw RFC 5322 message (mailparser); `envelopeTo` adds the SMTP envelope's recipients. */
export async function parseInboundMail(raw: Buffer | string, envelopeTo: string[] = []): Promise<InboundMail> {
  const mail = await simpleParser(raw, { skipHtmlToText: true, skipImageLinks: true, skipTextLinks: true });
  const references = Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [];
  return {
    to: [...new Set([...addresses(mail.to), ...addresses(mail.cc), ...envelopeTo.map(normaliseAddress)])],
    from: addresses(mail.from)[0],
    inReplyTo: mail.inReplyTo,
    references,
    subject: mail.subject ?? '',
    text: mail.text ?? '',
  };
}

/**
 * Thrown by `onMessage` to refuse a message for good: the SMTP answer is `responseCode` (5xx) with the message,
 * which the sending server puts in the bounce it sends back to the sender.
 */
export class InboundRefusal extends Error {
  override name = 'InboundRefusal';
  constructor(message: string, readonly responseCode = 550) {
    super(message);
  }
}

export interface InboundSmtp {
  port: number;
  close(): Promise<void>;
}

/**
 * A small SMTP receiver (smtp-server) for replies and forwarded mail: no authentication, no TLS (run it behind
 * the mail exchanger, or on loopback), messages up to `maxBytes` (1 MB unless told), and only recipients
 * `accepts` allows, so it relays nothing: any other RCPT TO is refused with 550. `onMessage` gets the parsed
 * mail, its raw bytes and the envelope's recipients (those this server accepted); an InboundRefusal it throws is the SMTP answer, any other error a 451 (try later).
 */
export async function startInboundSmtp(options: {
  host: string;
  port: number;
  accepts: (address: string) => boolean | Promise<boolean>;
  onMessage: (mail: InboundMail, raw: Buffer, envelope: { to: string[] }) => Promise<void>;
  maxBytes?: number;
  log?: { warn(obj: Record<string, unknown>, msg: string): void };
}): Promise<InboundSmtp> {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const shownLimit = maxBytes % (1024 * 1024) === 0 ? `${maxBytes / (1024 * 1024)} MB` : `${maxBytes} bytes`;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: maxBytes,
    logger: false,
    onRcptTo(address, _session, callback) {
      const refuse = () => callback(Object.assign(new Error(`No such mailbox here: ${address.address}`), { responseCode: 550 }));
      Promise.resolve()
        .then(() => options.accepts(address.address))
        .then((ok) => (ok ? callback() : refuse()), (error: unknown) => {
          options.log?.warn({ err: error }, 'inbound mail recipient could not be checked');
          callback(Object.assign(new Error('Temporary failure; try again later'), { responseCode: 451 }));
        });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let received = 0;
      // Past the limit the rest is read and dropped, never held.
      stream.on('data', (c: Buffer) => {
        received += c.length;
        if (received <= maxBytes) chunks.push(c);
      });
      stream.on('end', () => {
        if ((stream as { sizeExceeded?: boolean }).sizeExceeded || received > maxBytes) {
          return callback(Object.assign(new Error(`Message larger than ${shownLimit}`), { responseCode: 552 }));
        }
        const to = session.envelope.rcptTo.map((r) => r.address);
        const raw = Buffer.concat(chunks);
        parseInboundMail(raw, to)
          .then((mail) => options.onMessage(mail, raw, { to }))
          .then(() => callback(), (error: unknown) => {
            if (error instanceof InboundRefusal) return callback(Object.assign(new Error(error.message), { responseCode: error.responseCode }));
            options.log?.warn({ err: error }, 'inbound mail could not be handled');
            callback(Object.assign(new Error('Temporary failure; try again later'), { responseCode: 451 }));
          });
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  server.on('error', (error) => options.log?.warn({ err: error }, 'inbound SMTP error'));
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
