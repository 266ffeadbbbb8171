import { isFreeMailDomain } from '@loupe/companies';
import { emailSchema, LIMITS, participantSchema, type AttachmentInput, type CompanyInput, type IngestRecordInput, type Participant, type PersonInput } from '@loupe/records';
import type { Routing } from '../connector';
import type { Conversation, ConversationPart, IntercomCompany, IntercomContact, PartAttachment } from './shapes';

/** The workspace's id (`app.id_code`) names every id: two Intercom workspaces of one Loupe workspace never share a record or a person. */
export const conversationVendorId = (app: string, conversationId: string) => `${app}/conversations/${conversationId}`;
export const contactExternalId = (app: string, contactId: string) => `intercom:${app}:contact:${contactId}`;
export const companyExternalId = (app: string, companyId: string) => `intercom:${app}:company:${companyId}`;

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

/** Text PostgreSQL can store: without NUL characters, an unpaired UTF-16 surrogate made U+FFFD (a name must not cost the record). */
export function storable(value: string): string {
  return value.replace(/\0/g, '').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
/** Trimmed, cut to `max` without leaving half a surrogate pair, storable; undefined when nothing is left. */
const clean = (value: string | null | undefined, max: number) => (value ? storable(value.trim().slice(0, max)).trim() || undefined : undefined);

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Intercom's bodies are HTML: the text of it, paragraphs and line breaks kept as new lines. */
export function htmlText(html: string | null | undefined): string {
  if (!html) return '';
  return html
    .replace(/<(br|\/p|\/div|\/li|\/h[1-6])\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
        return Number.isInteger(code) && code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The email the record schema takes, or none: an address it would refuse must not cost the whole conversation. */
function recordEmail(value: string | null | undefined): string | undefined {
  const email = value?.trim().toLowerCase();
  return email && participantSchema.shape.email.safeParse(email).success ? email : undefined;
}

/**
 * Teammates (`admin`, `team`) are the team: internal. Contacts (`user`, `lead`) are customers: external. Bots (Fin,
 * workflows) speak for the team: internal, of type `bot` (the record schema's roles are internal, external, unknown).
 */
function kindOf(type: string | undefined): { role: Participant['role']; type: NonNullable<Participant['type']> } {
  switch (type) {
    case 'admin':
    case 'team': return { role: 'internal', type: 'workspace_member' };
    case 'bot': return { role: 'internal', type: 'bot' };
    case 'user': return { role: 'external', type: 'user' };
    case 'lead':
    case 'contact': return { role: 'external', type: 'contact' };
    default: return { role: 'unknown', type: 'unknown' };
  }
}

interface Speaker { type: string; id: string; name?: string | undefined; email?: string | undefined }

function participantOf(app: string, who: Speaker): Participant {
  const email = recordEmail(who.email);
  const kind = kindOf(who.type);
  const name = clean(who.name, 256);
  return {
    id: email ?? `intercom:${app}:${who.type}:${who.id}`.slice(0, 256),
    role: kind.role,
    ...(name ? { name } : {}),
    ...(email ? { email } : {}),
    type: kind.type,
  };
}

function attachmentType(mime: string | null | undefined): AttachmentInput['type'] {
  const top = mime?.split('/')[0];
  if (top === 'image' || top === 'audio' || top === 'video' || top === 'text') return top;
  return mime ? 'file' : 'unknown';
}

/** An attachment by its URL, for the worker's SSRF-safe downloader; one without an https URL is left out. */
function attachmentOf(a: PartAttachment): AttachmentInput | undefined {
  if (!a.url || a.url.length > 2048) return undefined;
  try {
    if (new URL(a.url).protocol !== 'https:') return undefined;
  } catch {
    return undefined;
  }
  return {
    type: attachmentType(a.content_type),
    vendor_url: a.url,
    ...(clean(a.name, 512) ? { filename: clean(a.name, 512) } : {}),
    ...(clean(a.content_type, 256) ? { mime_type: clean(a.content_type, 256) } : {}),
    ...(typeof a.filesize === 'number' && a.filesize >= 0 ? { size: a.filesize } : {}),
  };
}

/** Parts that say something: a comment or a note with a body or files. Assignments, opens, closes and snoozes are not messages. */
function isMessage(p: ConversationPart): boolean {
  return Boolean(htmlText(p.body) || p.attachments.length);
}

/**
 * One conversation with its parts as one `conversation` record: its first message (the source) and every part that says
 * something, notes marked private. Its `_event_at` is its latest message, so a conversation read again without a new
 * message (a state change, an assignment) is a duplicate, and one with a new message is a new version of it, in the
 * same `_thread_id`.
 */
export function conversationRecord(
  app: string, routing: Routing, conversation: Conversation, parts: ConversationPart[], contacts: ReadonlyMap<string, IntercomContact>,
): IngestRecordInput {
  const speaker = (author: { type: string; id?: string | null | undefined; name?: string | null | undefined; email?: string | null | undefined } | null | undefined): Speaker | undefined => {
    if (!author?.id) return undefined;
    const contact = author.type === 'user' || author.type === 'lead' || author.type === 'contact' ? contacts.get(author.id) : undefined;
    return { type: contact?.role === 'user' || contact?.role === 'lead' ? contact.role : author.type, id: author.id, name: author.name || contact?.name || undefined, email: author.email || contact?.email || undefined };
  };
  const people = new Map<string, Participant>();
  const add = (who: Speaker | undefined) => {
    if (!who) return;
    const key = `${who.type}:${who.id}`;
    if (!people.has(key)) people.set(key, participantOf(app, who));
  };
  for (const ref of conversation.contacts?.contacts ?? []) {
    const contact = contacts.get(ref.id);
    add({ type: contact?.role === 'lead' ? 'lead' : contact?.role === 'user' ? 'user' : 'contact', id: ref.id, name: contact?.name ?? undefined, email: contact?.email ?? undefined });
  }
  const source = conversation.source;
  const opening = source && (htmlText(source.body) || source.attachments.length) ? {
    author: speaker(source.author), body: htmlText(source.body), public: true, at: conversation.created_at, part_type: 'source', attachments: source.attachments,
  } : undefined;
  const said = [...parts].filter(isMessage).sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id)).map((p) => ({
    author: speaker(p.author), body: htmlText(p.body), public: p.part_type !== 'note', at: p.created_at, part_type: p.part_type, attachments: p.attachments,
  }));
  const messages = opening ? [opening, ...said] : said;
  for (const m of messages) add(m.author);
  const attachments = messages.flatMap((m) => m.attachments.map(attachmentOf)).filter((a) => a !== undefined).slice(0, LIMITS.attachmentsPerRecord);
  const tags = (conversation.tags?.tags ?? []).map((t) => storable(t.name.trim())).filter((t) => t.length > 0 && t.length <= 64).slice(0, LIMITS.tagsPerRecord);
  const last = messages.length ? Math.max(...messages.map((m) => m.at)) : conversation.created_at;
  const vendorId = conversationVendorId(app, conversation.id);
  const subject = htmlText(conversation.title) || htmlText(source?.subject);
  return {
    _type: 'conversation',
    _schema_version: '1.0.0',
    _event_at: iso(last),
    _vendor_ids: { intercom: vendorId },
    _product_id: routing.productId,
    _project_ids: [routing.projectId],
    _nature: 'evidence',
    _thread_id: `intercom:${vendorId}`,
    _participants: [...people.values()].slice(0, LIMITS.participantsPerRecord),
    ...(attachments.length ? { _attachments: attachments } : {}),
    ...(tags.length ? { _tags: [...new Set(tags)] } : {}),
    data: {
      subject: subject || `Intercom conversation ${conversation.id}`,
      channel: source?.type ? `intercom ${source.type}` : 'intercom',
      ...(conversation.state ? { status: conversation.state } : {}),
      ...(source?.delivered_as ? { delivered_as: source.delivered_as } : {}),
      created_at: iso(conversation.created_at),
      messages: messages.map((m) => ({
        author: m.author ? { name: m.author.name, email: recordEmail(m.author.email), type: m.author.type } : 'Intercom',
        body: m.body,
        public: m.public,
        part_type: m.part_type,
        at: iso(m.at),
      })),
    },
  };
}

/** The host of a company's website, less free-mail ones (they never name a company). */
function domainOf(website: string | null | undefined): string | undefined {
  const w = website?.trim();
  if (!w) return undefined;
  try {
    const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(w) ? w : `https://${w}`).hostname.toLowerCase().replace(/^www\./, '');
    return host.includes('.') && host.length <= 253 && !isFreeMailDomain(host) ? host : undefined;
  } catch {
    return undefined;
  }
}

/** An Intercom company as a company: its name, and its website's domain. */
export function intercomCompany(app: string, company: IntercomCompany): CompanyInput {
  const domain = domainOf(company.website);
  return {
    external_id: companyExternalId(app, company.id),
    name: clean(company.name, 256) ?? `Intercom company ${company.id}`,
    domains: domain ? [domain] : [],
    attributes: { intercom_id: company.id, ...(clean(company.company_id, 1000) ? { intercom_company_id: clean(company.company_id, 1000) } : {}) },
  };
}

/** A contact (a user or a lead: a customer) as a person, in the first of its companies this read knows. */
export function contactPerson(app: string, contact: IntercomContact, knownCompanies: ReadonlySet<string>): PersonInput {
  const email = emailSchema.safeParse(contact.email?.trim().toLowerCase() ?? '');
  const company = (contact.companies?.data ?? []).find((c) => knownCompanies.has(c.id));
  return {
    external_id: contactExternalId(app, contact.id),
    email: email.success ? email.data : null,
    name: clean(contact.name, 256) ?? null,
    company_external_id: company ? companyExternalId(app, company.id) : null,
    attributes: { intercom_id: contact.id, ...(clean(contact.role, 32) ? { intercom_role: clean(contact.role, 32) } : {}) },
  };
}
