import { isFreeMailDomain } from '@loupe/companies';
import { emailSchema, LIMITS, participantSchema, type AttachmentInput, type CompanyInput, type IngestRecordInput, type Participant, type PersonInput } from '@loupe/records';
import type { Routing } from '../connector';
import type { Comment, Organization, Ticket, ZendeskUser } from './shapes';

/** The instance's host names every id, so two Zendesk instances of one workspace never share a record or a person. */
export const ticketVendorId = (host: string, ticketId: number) => `${host}/tickets/${ticketId}`;
export const userExternalId = (host: string, userId: number) => `zendesk:${host}:user:${userId}`;
export const organizationExternalId = (host: string, orgId: number) => `zendesk:${host}:organization:${orgId}`;

const iso = (s: string) => new Date(s).toISOString();

/** Agents and admins are the team (internal); end users are customers (external); anyone unknown stays unknown. */
/** The email the record schema takes, or none: an address it would refuse must not cost the whole ticket. */
function recordEmail(value: string | null | undefined): string | undefined {
  const email = value?.trim().toLowerCase();
  return email && participantSchema.shape.email.safeParse(email).success ? email : undefined;
}

function participantOf(host: string, user: ZendeskUser | undefined, userId: number): Participant {
  const email = recordEmail(user?.email);
  const team = user?.role === 'agent' || user?.role === 'admin';
  const customer = user?.role === 'end-user';
  return {
    id: email ?? userExternalId(host, userId),
    role: team ? 'internal' : customer ? 'external' : 'unknown',
    ...(user?.name ? { name: user.name.slice(0, 256) } : {}),
    ...(email ? { email } : {}),
    type: team ? 'workspace_member' : customer ? 'contact' : 'unknown',
  };
}

function attachmentType(mime: string | null | undefined): AttachmentInput['type'] {
  const top = mime?.split('/')[0];
  if (top === 'image' || top === 'audio' || top === 'video' || top === 'text') return top;
  return mime ? 'file' : 'unknown';
}

function attachmentsOf(comments: Comment[]): AttachmentInput[] {
  const out: AttachmentInput[] = [];
  for (const c of comments) {
    for (const a of c.attachments) {
      if (out.length >= LIMITS.attachmentsPerRecord || !a.content_url) continue;
      out.push({
        type: attachmentType(a.content_type),
        vendor_url: a.content_url,
        ...(a.file_name ? { filename: a.file_name.slice(0, 512) } : {}),
        ...(a.content_type ? { mime_type: a.content_type.slice(0, 256) } : {}),
        ...(typeof a.size === 'number' && a.size >= 0 ? { size: a.size } : {}),
      });
    }
  }
  return out;
}

/**
 * One ticket with its comments (public replies and private notes) as one `conversation` record. Its `_event_at`
 * is its latest comment, so a ticket read again without a new comment is a duplicate (nothing new to say),
 * and one with a new comment is a new version of the conversation, in the same `_thread_id`.
 */
export function ticketRecord(host: string, routing: Routing, ticket: Ticket, comments: Comment[], users: ReadonlyMap<number, ZendeskUser>): IngestRecordInput {
  const sorted = [...comments].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id - b.id);
  const last = sorted[sorted.length - 1];
  const people = new Map<number, Participant>();
  const add = (userId: number | null | undefined) => {
    if (userId != null && userId > 0 && !people.has(userId)) people.set(userId, participantOf(host, users.get(userId), userId));
  };
  add(ticket.requester_id);
  for (const c of sorted) add(c.author_id);
  const attachments = attachmentsOf(sorted);
  const tags = ticket.tags.filter((t) => t.length > 0 && t.length <= 64).slice(0, LIMITS.tagsPerRecord);
  return {
    _type: 'conversation',
    _schema_version: '1.0.0',
    _event_at: iso(last?.created_at ?? ticket.updated_at),
    _vendor_ids: { zendesk: ticketVendorId(host, ticket.id) },
    _product_id: routing.productId,
    _project_ids: [routing.projectId],
    _nature: 'evidence',
    _thread_id: `zendesk:${ticketVendorId(host, ticket.id)}`,
    _participants: [...people.values()].slice(0, LIMITS.participantsPerRecord),
    ...(attachments.length ? { _attachments: attachments } : {}),
    ...(tags.length ? { _tags: tags } : {}),
    data: {
      subject: ticket.subject ?? `Zendesk ticket ${ticket.id}`,
      channel: ticket.via?.channel != null ? `zendesk ${ticket.via.channel}` : 'zendesk',
      status: ticket.status,
      ...(ticket.priority ? { priority: ticket.priority } : {}),
      ...(ticket.type ? { ticket_type: ticket.type } : {}),
      created_at: iso(ticket.created_at),
      messages: sorted.map((c) => {
        const author = c.author_id != null ? users.get(c.author_id) : undefined;
        return {
          author: author ? { name: author.name ?? undefined, email: recordEmail(author.email) } : 'Zendesk',
          body: c.plain_body ?? c.body ?? '',
          public: c.public,
          at: iso(c.created_at),
        };
      }),
    },
  };
}

/** A Zendesk organization as a company: its domains, less free-mail ones (they never name a company). */
export function organizationCompany(host: string, org: Organization): CompanyInput {
  const domains = [...new Set(org.domain_names.map((d) => d.trim().toLowerCase()).filter((d) => d && !isFreeMailDomain(d)))];
  return { external_id: organizationExternalId(host, org.id), name: org.name.slice(0, 256) || `Zendesk organization ${org.id}`, domains: domains.slice(0, 50), attributes: { zendesk_id: org.id } };
}

/** An end user (a customer) as a person; agents are the team, not people of the directory. */
export function endUserPerson(host: string, user: ZendeskUser, knownOrganizations: ReadonlySet<number>): PersonInput | undefined {
  if (user.role !== 'end-user') return undefined;
  const email = emailSchema.safeParse(user.email ?? '');
  return {
    external_id: userExternalId(host, user.id),
    email: email.success ? email.data : null,
    name: user.name ?? null,
    company_external_id: user.organization_id != null && knownOrganizations.has(user.organization_id) ? organizationExternalId(host, user.organization_id) : null,
    attributes: { zendesk_id: user.id },
  };
}
