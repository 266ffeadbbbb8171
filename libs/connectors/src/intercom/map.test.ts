import { itemOfRecord, validateItems } from '@loupe/records';
import { describe, expect, it } from 'vitest';
import { contactPerson, conversationRecord, htmlText, intercomCompany } from './map';
import { companySchema, contactSchema, conversationPartSchema, conversationSchema } from './shapes';

const routing = { productId: 'prod_1', projectId: 'proj_1' };
const conversation = conversationSchema.parse({
  type: 'conversation', id: '1911149811', title: null, created_at: 1767225600, updated_at: 1767229200, state: 'open',
  source: {
    type: 'conversation', id: '269650473', delivered_as: 'customer_initiated', subject: '<p>Export</p>', body: '<p>Exporting to CSV fails &amp; shows <b>error 42</b></p>',
    author: { type: 'user', id: 'ct1', name: 'Odd Address', email: 'odd@@address' },
    attachments: [{ type: 'upload', name: 'error.png', url: 'https://downloads.intercomcdn.com/i/o/1/error.png', content_type: 'image/png', filesize: 4821 }],
  },
  contacts: { type: 'contact.list', contacts: [{ type: 'contact', id: 'ct1', external_id: 'u-1' }] },
  tags: { type: 'tag.list', tags: [{ type: 'tag', id: '1', name: 'export' }, { type: 'tag', id: '2', name: 'x'.repeat(65) }] },
});
const parts = [
  { id: '3', part_type: 'note', body: '<p>Needs engineering</p>', created_at: 1767225900, author: { type: 'admin', id: '814860', name: 'Alex', email: 'Alex@Support.example' } },
  { id: '2', part_type: 'comment', body: '<p>Here is an article</p>', created_at: 1767225700, author: { type: 'bot', id: '990001', name: 'Fin', email: 'operator+abc@intercom.io' } },
  { id: '4', part_type: 'assignment', body: null, created_at: 1767229200, author: { type: 'admin', id: '814860', name: 'Alex', email: 'alex@support.example' } },
  { id: '5', part_type: 'comment', body: '<p>Thanks!<br>It works</p>', created_at: 1767226000, author: { type: 'lead', id: 'ct2', name: '', email: '' } },
].map((p) => conversationPartSchema.parse(p));
const contacts = new Map([
  ['ct1', contactSchema.parse({ type: 'contact', id: 'ct1', role: 'user', name: 'Odd Address', email: 'odd@@address', companies: { data: [{ type: 'company', id: 'c9' }, { type: 'company', id: 'c5' }] } })],
  ['ct2', contactSchema.parse({ type: 'contact', id: 'ct2', role: 'lead', name: 'Lee Lead', email: 'lee@globex.example' })],
]);

describe('Intercom objects as records, companies and people', () => {
  it('makes one conversation the record schema accepts: every message in order, notes private, roles from the author types, the latest message as _event_at', () => {
    const record = conversationRecord('abc123de', routing, conversation, parts, contacts);
    const { accepted, errors } = validateItems([{ ...itemOfRecord(record), index: 0 }]);
    expect(errors).toEqual([]);
    expect(accepted).toHaveLength(1);
    expect(record).toMatchObject({
      _type: 'conversation', _nature: 'evidence', _event_at: '2026-01-01T00:06:40.000Z',
      _vendor_ids: { intercom: 'abc123de/conversations/1911149811' }, _thread_id: 'intercom:abc123de/conversations/1911149811', _tags: ['export'],
      _attachments: [{ type: 'image', vendor_url: 'https://downloads.intercomcdn.com/i/o/1/error.png', filename: 'error.png', mime_type: 'image/png', size: 4821 }],
    });
    expect(record._participants).toEqual([
      { id: 'intercom:abc123de:user:ct1', role: 'external', name: 'Odd Address', type: 'user' },
      { id: 'operator+abc@intercom.io', role: 'internal', name: 'Fin', email: 'operator+abc@intercom.io', type: 'bot' },
      { id: 'alex@support.example', role: 'internal', name: 'Alex', email: 'alex@support.example', type: 'workspace_member' },
      { id: 'lee@globex.example', role: 'external', name: 'Lee Lead', email: 'lee@globex.example', type: 'contact' },
    ]);
    const messages = record.data.messages as Array<{ body: string; public: boolean; part_type: string }>;
    expect(messages.map((m) => [m.part_type, m.body, m.public])).toEqual([
      ['source', 'Exporting to CSV fails & shows error 42', true],
      ['comment', 'Here is an article', true],
      ['note', 'Needs engineering', false],
      ['comment', 'Thanks!\nIt works', true],
    ]);
    expect(record.data).toMatchObject({ subject: 'Export', channel: 'intercom conversation', status: 'open', delivered_as: 'customer_initiated' });
  });

  it('reads a conversation again with only an assignment or a close as the same record (same _event_at), and a new message as a new version', () => {
    const first = conversationRecord('abc123de', routing, conversation, parts, contacts);
    const closed = conversationRecord('abc123de', routing, { ...conversation, state: 'closed' }, [...parts, conversationPartSchema.parse({ id: '6', part_type: 'close', body: null, created_at: 1767300000 })], contacts);
    expect(closed._event_at).toBe(first._event_at);
    const answered = conversationRecord('abc123de', routing, conversation, [...parts, conversationPartSchema.parse({ id: '7', part_type: 'comment', body: 'Again', created_at: 1767300000, author: { type: 'user', id: 'ct1' } })], contacts);
    expect(answered._event_at).toBe('2026-01-01T20:40:00.000Z');
    expect(answered._thread_id).toBe(first._thread_id);
  });

  it('keeps a name or tag PostgreSQL cannot store (NUL, half a surrogate pair) out of the way instead of losing the conversation, and refuses an id that is not Intercom\'s', () => {
    const odd = conversationSchema.parse({ ...conversation, tags: { tags: [{ name: 'ex\u0000port' }, { name: '\uD83D' }] } });
    const part = conversationPartSchema.parse({ id: '9', part_type: 'comment', body: 'hi\u0000', created_at: 1767226000, author: { type: 'admin', id: '1', name: 'Al\u0000ex \uDE00', email: '' } });
    const record = conversationRecord('abc123de', routing, odd, [part], contacts);
    const { accepted, errors } = validateItems([{ ...itemOfRecord(record), index: 0 }]);
    expect(errors).toEqual([]);
    expect(accepted).toHaveLength(1);
    expect(record._tags).toEqual(['export', '\uFFFD']);
    expect(record._participants).toContainEqual({ id: 'intercom:abc123de:admin:1', role: 'internal', name: 'Alex \uFFFD', type: 'workspace_member' });
    expect(intercomCompany('abc123de', companySchema.parse({ type: 'company', id: 'c7', name: '\u0000' })).name).toBe('Intercom company c7');
    const refused = conversationSchema.safeParse({ ...conversation, id: '12\u0000; DROP' });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues[0]).toMatchObject({ path: ['id'], message: 'is not an Intercom id' });
  });

  it('turns HTML into text, leaving unknown or invalid entities as they are', () => {
    expect(htmlText('<p>a &lt;b&gt; &#233; &#x1F600; &#xD800; &bogus;</p><p>next</p>')).toBe('a <b> é 😀 &#xD800; &bogus;\nnext');
    expect(htmlText(null)).toBe('');
  });

  it('makes companies of Intercom companies (their website\'s domain) and people of contacts, in a company this read knows', () => {
    expect(intercomCompany('abc123de', companySchema.parse({ type: 'company', id: 'c5', name: 'Globex', company_id: 'g-1', website: 'https://www.Globex.example/about' }))).toEqual({
      external_id: 'intercom:abc123de:company:c5', name: 'Globex', domains: ['globex.example'], attributes: { intercom_id: 'c5', intercom_company_id: 'g-1' },
    });
    expect(intercomCompany('abc123de', companySchema.parse({ type: 'company', id: 'c6', name: '', website: 'gmail.com' }))).toMatchObject({ name: 'Intercom company c6', domains: [] });
    expect(contactPerson('abc123de', contacts.get('ct1')!, new Set(['c5']))).toEqual({
      external_id: 'intercom:abc123de:contact:ct1', email: null, name: 'Odd Address', company_external_id: 'intercom:abc123de:company:c5', attributes: { intercom_id: 'ct1', intercom_role: 'user' },
    });
    expect(contactPerson('abc123de', contacts.get('ct2')!, new Set())).toMatchObject({ email: 'lee@globex.example', company_external_id: null, attributes: { intercom_role: 'lead' } });
  });
});
