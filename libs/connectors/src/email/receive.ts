import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { acceptRecords } from '@loupe/batches';
import { newId } from '@loupe/db';
import { screenSuppressed } from '@loupe/erasure';
import type { Clock, Logger } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import { InboundRefusal, type InboundMail } from '@loupe/mail';
import { itemOfRecord, LIMITS, type AttachmentInput, type IngestRecordInput as RecordInput, type Participant } from '@loupe/records';
import type { Storage } from '@loupe/storage';
import type pg from 'pg';
import { addressTarget, domainAllowed, domainOf, forwardingToken, senderDomains, type AddressTarget } from './addresses';
import { parseForward, type ForwardedMessage, type MailFile, type MailPerson, type ParsedForward } from './parse';

/** The source name of the batches forwarded mail lands in. */
export const FORWARDING_SOURCE = 'email_forwarding';

export interface ForwardingDeps {
  pool: pg.Pool;
  boss: Boss;
  storage: Storage;
  clock: Clock;
  log: Logger;
  /** The inbound mail domain (MAIL_REPLY_DOMAIN): addresses are `fwd+<token>@<domain>`. */
  domain: string;
}

export interface ForwardOutcome {
  workspaceId: string;
  projectId: string;
  status: 'stored' | 'duplicate';
  batchId: string;
  type: 'email' | 'email_thread';
  attachments: number;
}

/** A file of the mail, stored before its record lands; `intent` ties it to the attachment row. */
export interface StoredFile {
  intent: string;
  key: string;
  size: number;
  sha1: string;
  md5: string;
  file: MailFile;
}

const shown = (p: MailPerson) => (p.name ? `${p.name} <${p.email}>` : p.email);
const personValue = (p: MailPerson) => (p.name ? { name: p.name, email: p.email } : { email: p.email });
const list = (people: MailPerson[]) => people.map(shown).join(', ').slice(0, 4000);
const iso = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

function attachmentType(contentType: string): AttachmentInput['type'] {
  const top = contentType.split('/')[0]!.toLowerCase();
  if (top === 'audio' || top === 'video' || top === 'image' || top === 'text') return top;
  return 'file';
}

/**
 * What identifies the forwarded mail, so forwarding it again (or a teammate forwarding the same mail) is a
 * duplicate: the original's Message-ID when it came attached whole, else a digest of its senders, dates,
 * subjects and texts (a forward's own Message-ID differs each time).
 */
export function forwardIdentity(parsed: ParsedForward): string {
  const single = parsed.messages.length === 1 ? parsed.messages[0]! : undefined;
  if (single?.messageId) return single.messageId.slice(0, 900);
  const digest = createHash('sha256')
    .update(JSON.stringify(parsed.messages.map((m) => [m.from?.email ?? '', m.date?.toISOString() ?? '', m.subject, m.body.replace(/\s+/g, ' ').trim()])))
    .digest('hex');
  return `sha256:${digest}`;
}

/**
 * The conversation a forward belongs to, so the same thread forwarded at two stages shares it: its first message's
 * subject (without Re:/Fwd: prefixes, case and spacing) and sender.
 */
export function forwardThreadId(parsed: ParsedForward): string {
  const first = parsed.messages[0]!;
  const subject = (first.subject || parsed.subject).replace(/^(?:\s*(?:re|aw|sv|fwd?|fw|tr|wg)\s*(?:\[\d+\])?\s*:\s*)+/i, '').replace(/\s+/g, ' ').trim().toLowerCase();
  const digest = createHash('sha256').update(JSON.stringify([subject, first.from?.email.toLowerCase() ?? ''])).digest('hex');
  return `email:${digest.slice(0, 40)}`;
}

function participantsOf(parsed: ParsedForward, internalDomains: readonly string[], inboundDomain: string): Participant[] {
  const byEmail = new Map<string, Participant>();
  const add = (p: MailPerson | undefined, forced?: 'internal') => {
    if (!p || domainOf(p.email) === inboundDomain || byEmail.size >= LIMITS.participantsPerRecord) return;
    const key = p.email.toLowerCase();
    const known = byEmail.get(key);
    if (known) {
      if (!known.name && p.name) known.name = p.name;
      return;
    }
    const internal = forced === 'internal' || domainAllowed(domainOf(p.email), internalDomains);
    byEmail.set(key, { id: p.email, role: internal ? 'internal' : 'external', email: p.email, type: internal ? 'user' : 'contact', ...(p.name ? { name: p.name } : {}) });
  };
  add(parsed.forwarder, 'internal');
  for (const m of parsed.messages) add(m.from);
  for (const m of parsed.messages) [...m.to, ...m.cc].forEach((p) => add(p));
  return [...byEmail.values()];
}

function messageData(m: ForwardedMessage) {
  return {
    ...(m.from ? { from: personValue(m.from) } : {}),
    ...(m.to.length ? { to: list(m.to) } : {}),
    ...(m.cc.length ? { cc: list(m.cc) } : {}),
    ...(m.date ? { date: iso(m.date) } : {}),
    subject: m.subject,
    body: m.body,
  };
}

/**
 * The record a forward becomes: one message → `email`, several → `email_thread` (oldest first under `emails`);
 * the forwarder is an internal participant, every other address internal when its domain is one the workspace
 * accepts forwarded mail from (the team's), else external; `_event_at` from the original (a thread's newest
 * message), else when the forward was sent, else when it arrived.
 */
export function recordOfForward(parsed: ParsedForward, target: AddressTarget, options: {
  internalDomains: readonly string[]; inboundDomain: string; files: readonly StoredFile[]; filesLeftOut: number; receivedAt: Date;
}): RecordInput {
  const thread = parsed.messages.length > 1;
  const dates = parsed.messages.map((m) => m.date).filter((d): d is Date => !!d);
  const eventAt = (thread ? dates.sort((a, b) => b.getTime() - a.getTime())[0] : dates[0]) ?? parsed.date ?? options.receivedAt;
  const forward = {
    ...(parsed.forwarder ? { forwarded_by: shown(parsed.forwarder) } : {}),
    ...(parsed.note ? { forward_note: parsed.note } : {}),
    ...(options.filesLeftOut ? { attachments_left_out: `${options.filesLeftOut} more attachment(s): a record keeps at most ${LIMITS.attachmentsPerRecord}` } : {}),
  };
  const first = parsed.messages[0]!;
  const data = thread
    ? { subject: parsed.subject || first.subject, emails: parsed.messages.map(messageData), ...forward }
    : { ...messageData(first), subject: first.subject || parsed.subject, ...forward };
  return {
    _type: thread ? 'email_thread' : 'email',
    _schema_version: '1.0.0',
    _event_at: iso(eventAt),
    _vendor_ids: { email_forwarding: forwardIdentity(parsed) },
    _thread_id: forwardThreadId(parsed),
    _product_id: target.productId,
    _project_ids: [target.projectId],
    _nature: 'evidence',
    data,
    _participants: participantsOf(parsed, options.internalDomains, options.inboundDomain),
    ...(options.files.length
      ? {
        _attachments: options.files.map((f) => ({
          type: attachmentType(f.file.contentType), ...(f.file.filename ? { filename: f.file.filename } : {}), size: f.size, mime_type: f.file.contentType,
          sha1: f.sha1, md5: f.md5, upload_intent_id: f.intent,
        })),
      }
      : {}),
  };
}

const sha = (algorithm: 'sha1' | 'md5', bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');

/** Stores each file under `<workspace>/mail/<id>`, its size and SHA-1 checked against the bytes in hand before it becomes visible. */
async function storeFiles(storage: Storage, workspaceId: string, files: readonly MailFile[], now: number): Promise<StoredFile[]> {
  const stored: StoredFile[] = [];
  try {
    for (const file of files) {
      const id = newId('mailatt', now);
      const key = `${workspaceId}/mail/${id}`;
      const expected = { size: file.content.length, sha1: sha('sha1', file.content), md5: sha('md5', file.content) };
      const object = await storage.put(key, Readable.from([file.content]), {
        maxBytes: file.content.length,
        verify: (s) => {
          if (s.size !== expected.size || s.sha1 !== expected.sha1) throw new Error(`stored ${s.size} bytes with SHA-1 ${s.sha1}, not the attachment's ${expected.size} bytes with ${expected.sha1}`);
        },
      });
      stored.push({ intent: `email-forwarding:${id}`, key, size: object.size, sha1: object.sha1, md5: object.md5, file });
    }
    return stored;
  } catch (error) {
    await dropFiles(storage, stored);
    throw error;
  }
}

async function dropFiles(storage: Storage, files: readonly StoredFile[]): Promise<void> {
  for (const f of files) await storage.delete(f.key).catch(() => false);
}

/**
 * The forwarding addresses' side of the inbound SMTP receiver: which recipients exist, and what a mail to them
 * becomes. A refusal is an InboundRefusal (a 5xx the sending server bounces to the forwarder, with its text).
 */
export function createForwardingReceiver(deps: ForwardingDeps) {
  const inboundDomain = deps.domain.toLowerCase();
  const isForwardingAddress = (address: string) => forwardingToken(address, inboundDomain) !== undefined;

  /** True when the address is a project's current forwarding address (an unknown or rotated one is refused at RCPT TO). */
  const accepts = async (address: string) => {
    const token = forwardingToken(address, inboundDomain);
    return !!token && !!(await addressTarget(deps.pool, token));
  };

  async function deliver(parsed: ParsedForward, target: AddressTarget, internalDomains: readonly string[]): Promise<ForwardOutcome> {
    const now = deps.clock.now();
    const files = await storeFiles(deps.storage, target.workspaceId, parsed.attachments.slice(0, LIMITS.attachmentsPerRecord), now);
    try {
      const record = recordOfForward(parsed, target, {
        internalDomains, inboundDomain, files, filesLeftOut: Math.max(0, parsed.attachments.length - LIMITS.attachmentsPerRecord), receivedAt: new Date(now),
      });
      const outcome = await acceptRecords({ pool: deps.pool, boss: deps.boss, screen: screenSuppressed }, {
        workspaceId: target.workspaceId, apiKeyId: null, connectionId: null, source: FORWARDING_SOURCE, format: 'text', items: [{ ...itemOfRecord(record), index: 0 }], now,
      }, async (client, _accepted, landed) => {
        if (!landed.insertedCount || !files.length) return;
        await client.query(
          `UPDATE attachments a SET status = 'COMPLETE', storage_key = f.key, stored_size = f.size, stored_mime_type = f.mime, updated_at = now()
             FROM jsonb_to_recordset($3::jsonb) AS f(intent text, key text, size bigint, mime text)
            WHERE a.workspace_id = $1 AND a.batch_id = $2 AND a.upload_intent_id = f.intent AND a.status = 'NOT_DOWNLOADED'`,
          [target.workspaceId, landed.batchId, JSON.stringify(files.map((f) => ({ intent: f.intent, key: f.key, size: f.size, mime: f.file.contentType })))],
        );
      });
      if (!outcome.landed) {
        await dropFiles(deps.storage, files);
        const first = outcome.errors[0];
        const reason = first ? `${first.code}: ${first.message}` : `${outcome.code}: ${outcome.message}`;
        deps.log.warn({ workspaceId: target.workspaceId, code: outcome.code, reason }, 'forwarded mail refused');
        throw new InboundRefusal(`5.7.1 Loupe did not store this forwarded mail: ${reason}`.slice(0, 500));
      }
      const duplicate = outcome.insertedCount === 0;
      if (duplicate) await dropFiles(deps.storage, files);
      deps.log.info({ workspaceId: target.workspaceId, projectId: target.projectId, batchId: outcome.batchId, type: record._type, attachments: files.length, duplicate }, 'forwarded mail received');
      return { workspaceId: target.workspaceId, projectId: target.projectId, status: duplicate ? 'duplicate' : 'stored', batchId: outcome.batchId, type: record._type as ForwardOutcome['type'], attachments: duplicate ? 0 : files.length };
    } catch (error) {
      if (!(error instanceof InboundRefusal)) await dropFiles(deps.storage, files);
      throw error;
    }
  }

  /**
   * A mail to one or more forwarding addresses (the SMTP envelope's recipients when given, else the headers'): each address's workspace must accept the forwarder's domain (the
   * From header's; the envelope's when it has none). Refused for every address → InboundRefusal naming why. An
   * automatic reply (out-of-office) is taken and dropped: nothing stored, nothing bounced.
   */
  async function receive(mail: InboundMail, raw: Buffer, envelopeTo?: readonly string[]): Promise<ForwardOutcome[]> {
    // The envelope says where the mail was delivered; the headers only where its sender said it went.
    const recipients = envelopeTo?.length ? envelopeTo : mail.to;
    const tokens = [...new Set(recipients.map((a) => forwardingToken(a, inboundDomain)).filter((t): t is string => !!t))];
    const targets: AddressTarget[] = [];
    for (const token of tokens) {
      const target = await addressTarget(deps.pool, token);
      if (target) targets.push(target);
    }
    if (!targets.length) throw new InboundRefusal('5.1.1 No such mailbox here: this forwarding address does not exist (any more)');
    const parsed = await parseForward(raw);
    // An out-of-office answering a mail the address was copied on: taken (so nothing bounces) and dropped.
    if (parsed.automatic) {
      deps.log.info({ workspaces: targets.map((t) => t.workspaceId) }, 'automatic reply to a forwarding address dropped');
      return [];
    }
    const sender = parsed.forwarder?.email ?? mail.from;
    if (!sender || !sender.includes('@')) {
      throw new InboundRefusal('5.7.1 Loupe refused this forwarded mail: it names no sender (From), and only senders from domains the workspace allows may forward to this address');
    }
    const senderDomain = domainOf(sender);
    const outcomes: ForwardOutcome[] = [];
    const refusals: string[] = [];
    for (const target of targets) {
      const allowed = await senderDomains(deps.pool, target.workspaceId);
      if (!domainAllowed(senderDomain, allowed.domains)) {
        deps.log.info({ workspaceId: target.workspaceId, senderDomain }, 'forwarded mail refused: sender domain not allowed');
        refusals.push(`5.7.1 Loupe refused this forwarded mail: the sender ${sender} is not from a domain this workspace accepts forwarded mail from (${senderDomain} is not allowed). `
          + 'Forward it from your work address, or ask an owner or admin of the workspace to add the domain under Email forwarding in the Loupe console.');
        continue;
      }
      // The team's domains: the accepted sender domains and the forwarder's own.
      outcomes.push(await deliver(parsed, target, [...allowed.domains, senderDomain]));
    }
    if (!outcomes.length) throw new InboundRefusal(refusals[0]!);
    return outcomes;
  }

  return { isForwardingAddress, accepts, receive };
}

export type ForwardingReceiver = ReturnType<typeof createForwardingReceiver>;
