import fc from 'fast-check';
import { systemClock } from '@loupe/http';
import { addSignals } from '@loupe/evidence';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { createShapingNote } from '@loupe/shaping';
import type pg from 'pg';
import { addRecord } from './plant';

/** A person as records name them: `idStored`/`emailStored` are how their records spell them, `id`/`email` how an erasure asks. */
export interface Person {
  id: string;
  idStored: string;
  email: string;
  emailStored: string;
  name: string;
}

export type Asked = { participantId?: string; email?: string };

const SHARED = ['Customer', 'Support', 'Agent'];
const FIRST = ['Ana', 'Bea', 'Cleo', 'Dana'];
const LAST = ['Quill', 'Rook', 'Sparrow', 'Tern'];

const recase = (s: string, mask: number) => [...s].map((ch, i) => ((mask >> (i % 30)) & 1 ? ch.toUpperCase() : ch.toLowerCase())).join('');

/**
 * Two people, A (to erase) and B: ids that overlap (B's may be A's with more after or before it:
 * `p-1` and `p-10`, `p-1-2`, `x-p-1`), addresses that hold A's (`mary-ana@…`, `mary.ana@…`,
 * `ana@….uk`), role labels both carry ("Customer"), the same full name, names that extend A's
 * ("Ana Quill-Smith"); A's records spell A's id and address in another case than the erasure asks.
 */
export const twoPeople = fc.record({
  prefix: fc.constantFrom('p-', 'cu', 'cust-', 'u_', 'x.'),
  n: fc.integer({ min: 0, max: 99 }),
  bId: fc.constantFrom('other', 'longer', 'dash', 'dot', 'before'),
  local: fc.constantFrom('ana', 'bea.q', 'cleo_r', 'dana+x'),
  bEmail: fc.constantFrom('other', 'dash', 'dot', 'tld', 'subdomain'),
  aName: fc.constantFrom('shared', 'unique'),
  bName: fc.constantFrom('same', 'shared', 'other-shared', 'extends', 'unique'),
  shared: fc.nat({ max: SHARED.length - 1 }),
  first: fc.nat({ max: FIRST.length - 1 }),
  last: fc.nat({ max: LAST.length - 1 }),
  storedCase: fc.nat({ max: 2 ** 30 - 1 }),
  askedCase: fc.nat({ max: 2 ** 30 - 1 }),
  by: fc.constantFrom('id', 'email', 'both'),
}).map((g) => {
  const aId = `${g.prefix}${g.n}`;
  const bId = { other: `${g.prefix}${g.n + 100}`, longer: `${aId}0`, dash: `${aId}-2`, dot: `${aId}.2`, before: `x-${aId}` }[g.bId];
  const aEmail = `${g.local}@globex.test`;
  const bEmail = { other: 'zed@globex.test', dash: `mary-${g.local}@globex.test`, dot: `mary.${g.local}@globex.test`, tld: `${g.local}@globex.test.uk`, subdomain: `${g.local}@eu.globex.test` }[g.bEmail];
  const aName = g.aName === 'shared' ? SHARED[g.shared]! : `${FIRST[g.first]} ${LAST[g.last]}`;
  const bName = {
    same: aName, shared: SHARED[g.shared]!, 'other-shared': SHARED[(g.shared + 1) % SHARED.length]!, extends: `${aName}-Smith`,
    unique: `${FIRST[(g.first + 1) % FIRST.length]} ${LAST[(g.last + 1) % LAST.length]}`,
  }[g.bName];
  const a: Person = { id: aId, idStored: recase(aId, g.storedCase), email: aEmail, emailStored: recase(aEmail, g.storedCase >> 3), name: aName };
  const b: Person = { id: bId, idStored: bId, email: bEmail, emailStored: bEmail, name: bName };
  const asked: Asked = {
    ...(g.by !== 'email' ? { participantId: recase(aId, g.askedCase) } : {}),
    ...(g.by !== 'id' ? { email: recase(aEmail, g.askedCase >> 5) } : {}),
  };
  return { a, b, asked };
});

/**
 * What a workspace holds of one person: a call they took part in (participant entry, their turn, a
 * staff member's turn naming them), its source, two signals (one with their participant id, one by
 * name only), a shaping note quoting them, and a job whose result quotes their address and id.
 */
export async function plantPerson(pool: pg.Pool, boss: Boss, w: { ws: string; prod: string; batch: string }, p: Person) {
  const call = await addRecord(pool, w, {
    participants: [{ id: p.idStored, role: 'external', name: p.name, email: p.emailStored }, { id: 'staff-1', role: 'internal', name: 'Sam Staff' }],
    data: {
      title: 'Call about exports',
      transcript: [
        { speaker: p.name, text: `${p.name} here (${p.idStored}, ${p.emailStored}): the export is slow.` },
        { speaker: 'Sam Staff', text: `Thanks ${p.name}, I will write to ${p.email} about ${p.id}.` },
      ],
    },
    vendorIds: { gong: `call/${p.id}` },
  });
  const signals = await addSignals(pool, { workspaceId: w.ws, sourceId: call.source, items: [
    { type: 'pain_point', title: 'Slow export', content: `${p.name}: the export is slow (${p.id})`, whoSaidIt: p.name, participantId: p.idStored },
    { type: 'quote', title: 'Dashboards', content: `Dashboards never load, says ${p.name}`, whoSaidIt: p.name },
  ] }, systemClock);
  const note = await createShapingNote(pool, {
    workspaceId: w.ws, productId: w.prod, title: 'Export notes', content: `# Export\n\n> "The export is slow"\n— ${p.name} (${p.email})\n\nFollow up with ${p.id}.`,
  }, systemClock);
  const job = await enqueue(boss, QUEUES.downloadAttachment, { workspaceId: w.ws, batchId: w.batch, attachmentId: `att_01J${p.id}` }, { startAfter: 3600 });
  await pool.query('UPDATE pgboss.job SET output = $2 WHERE id = $1', [job, JSON.stringify({ read: `${p.email} and ${p.id}`, count: 42, batchId: `bat_01J${p.id}X` })]);
  return { records: [call.record], sources: [call.source], signals: signals.results.map((s) => s.id), notes: [note.id], jobs: [job!] };
}
