import { itemOfRecord, validateItems } from '@loupe/records';
import { describe, expect, it } from 'vitest';
import { endUserPerson, organizationCompany, ticketRecord } from './map';
import { commentSchema, organizationSchema, ticketSchema, userSchema } from './shapes';

const routing = { productId: 'prod_1', projectId: 'proj_1' };
const ticket = ticketSchema.parse({ id: 7, subject: 'Export fails', status: 'open', requester_id: 70, tags: ['export', 'x'.repeat(65)], created_at: '2026-01-02T03:04:05Z', updated_at: '2026-01-03T00:00:00Z' });
const users = new Map([
  [70, userSchema.parse({ id: 70, name: 'Odd Address', email: 'odd@@address', role: 'end-user', organization_id: 5 })],
  [1, userSchema.parse({ id: 1, name: 'Alex', email: 'Alex@Support.example', role: 'admin' })],
]);
const comments = [
  commentSchema.parse({ id: 2, author_id: 1, body: 'note', public: false, created_at: '2026-01-02T05:00:00Z' }),
  commentSchema.parse({ id: 1, author_id: 70, body: 'It fails', public: true, created_at: '2026-01-02T03:04:05Z' }),
];

describe('Zendesk objects as records, companies and people', () => {
  it('makes one conversation the record schema accepts, even with an address it would refuse (left out, not the ticket)', () => {
    const record = ticketRecord('acme.zendesk.com', routing, ticket, comments, users);
    const { accepted, errors } = validateItems([{ ...itemOfRecord(record), index: 0 }]);
    expect(errors).toEqual([]);
    expect(accepted).toHaveLength(1);
    expect(record).toMatchObject({
      _event_at: '2026-01-02T05:00:00.000Z', _vendor_ids: { zendesk: 'acme.zendesk.com/tickets/7' }, _tags: ['export'],
      _participants: [
        { id: 'zendesk:acme.zendesk.com:user:70', role: 'external', name: 'Odd Address', type: 'contact' },
        { id: 'alex@support.example', role: 'internal', email: 'alex@support.example', type: 'workspace_member' },
      ],
    });
    expect((record.data.messages as Array<{ body: string; public: boolean }>).map((m) => [m.body, m.public])).toEqual([['It fails', true], ['note', false]]);
  });

  it('keeps an end user without a usable email as a person, and drops free-mail domains from a company', () => {
    expect(endUserPerson('acme.zendesk.com', users.get(70)!, new Set([5]))).toMatchObject({ email: null, company_external_id: 'zendesk:acme.zendesk.com:organization:5' });
    expect(endUserPerson('acme.zendesk.com', users.get(1)!, new Set())).toBeUndefined();
    expect(organizationCompany('acme.zendesk.com', organizationSchema.parse({ id: 5, name: 'Globex', domain_names: ['Globex.com', 'gmail.com'] })).domains).toEqual(['globex.com']);
  });
});
