import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { InboundRefusal, parseInboundMail } from '@loupe/mail';
import { createLocalStorage } from '@loupe/storage';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardingAddress, listProjectAddresses, parseDomainList, projectAddressToken, senderDomains, setSenderDomains } from './addresses';
import { parseForward } from './parse';
import { createForwardingReceiver, recordOfForward, type ForwardingReceiver } from './receive';

const DOMAIN = 'in.loupe.test';
const fixture = (name: string, token: string) => Buffer.from(readFileSync(new URL(`./fixtures/${name}.eml`, import.meta.url), 'utf8').replaceAll('fwd+TOKEN@DOMAIN', forwardingAddress(token, DOMAIN)));

let t: TestDatabase;
let boss: Boss;
let receiver: ForwardingReceiver;
let storage: ReturnType<typeof createLocalStorage>;
let ws: string;
let other: string;
let project: string;
let otherProject: string;

async function member(workspaceId: string, email: string) {
  const id = `usr_${Math.random().toString(36).slice(2)}`;
  await t.pool.query('INSERT INTO users (id, email) VALUES ($1, $2)', [id, email]);
  await t.pool.query("INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, 'owner')", [workspaceId, id]);
}

const deliver = async (raw: Buffer) => receiver.receive(await parseInboundMail(raw), raw);

beforeAll(async () => {
  t = await createTestDatabase();
  boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
  project = (await createProject(t.db, ws, (await createProduct(t.db, ws, { name: 'App' })).id, { name: 'Support' })).id;
  other = (await createWorkspace(t.db, { name: 'Globex' })).id;
  otherProject = (await createProject(t.db, other, (await createProduct(t.db, other, { name: 'Other' })).id, { name: 'Sales' })).id;
  await member(ws, 'dee@acme.test');
  await member(other, 'sam@globex.example');
  storage = createLocalStorage(mkdtempSync(path.join(tmpdir(), 'loupe-fwd-')));
  receiver = createForwardingReceiver({ pool: t.pool, boss, storage, clock: { now: () => Date.now() }, log: pino({ level: 'silent' }), domain: DOMAIN });
});

afterAll(async () => {
  await boss?.stop({ graceful: false, close: true });
  await t?.close();
});

describe('forwarding addresses', () => {
  it('one per project, made on first use and kept; rotating replaces it; another workspace\'s project gets none', async () => {
    const token = (await projectAddressToken(t.pool, ws, project, new Date()))!;
    expect(token).toMatch(/^[a-z2-7]{26}$/);
    expect(await projectAddressToken(t.pool, ws, project, new Date())).toBe(token);
    expect(await projectAddressToken(t.pool, ws, otherProject, new Date())).toBeUndefined();
    expect(await receiver.accepts(forwardingAddress(token, DOMAIN))).toBe(true);
    expect(await receiver.accepts(forwardingAddress(token, DOMAIN).toUpperCase())).toBe(true);
    expect(await receiver.accepts(forwardingAddress(token, 'elsewhere.test'))).toBe(false);
    const rotated = (await projectAddressToken(t.pool, ws, project, new Date(), { rotate: true }))!;
    expect(rotated).not.toBe(token);
    expect(await receiver.accepts(forwardingAddress(token, DOMAIN))).toBe(false);
    expect(await receiver.accepts(forwardingAddress(rotated, DOMAIN))).toBe(true);
    expect((await listProjectAddresses(t.pool, ws)).map((a) => [a.projectId, a.token])).toEqual([[project, rotated]]);
  });

  it('sender domains: the members\' by default, else the workspace\'s list; a bad entry is named', async () => {
    expect(await senderDomains(t.pool, ws)).toEqual({ domains: ['acme.test'], fromMembers: true });
    expect(parseDomainList('@Acme.test, support.acme.test\nacme.test')).toEqual({ domains: ['acme.test', 'support.acme.test'] });
    expect(parseDomainList('acme.test, dee@acme.test')).toEqual({ error: expect.stringContaining('"dee@acme.test" is not a mail domain') });
    expect(parseDomainList('*.acme.test')).toEqual({ error: expect.stringContaining('"*.acme.test"') });
    await setSenderDomains(t.pool, other, ['globex.example', 'partner.example'], new Date());
    expect(await senderDomains(t.pool, other)).toEqual({ domains: ['globex.example', 'partner.example'], fromMembers: false });
    expect(await senderDomains(t.pool, ws)).toEqual({ domains: ['acme.test'], fromMembers: true });
  });
});

describe('a forwarded mail', () => {
  it('becomes an email with the forwarder internal, the customer external and both files stored; the same mail again is a duplicate', async () => {
    const token = (await projectAddressToken(t.pool, ws, project, new Date()))!;
    const [outcome] = await deliver(fixture('gmail-forward', token));
    expect(outcome).toMatchObject({ workspaceId: ws, projectId: project, status: 'stored', type: 'email', attachments: 2 });
    const { rows: [record] } = await t.pool.query('SELECT id, type, event_at, vendor_ids, participants, data, project_ids FROM records WHERE workspace_id = $1 AND batch_id = $2', [ws, outcome!.batchId]);
    expect(record.type).toBe('email');
    expect(record.project_ids).toEqual([project]);
    expect(record.event_at.toISOString()).toBe('2026-11-16T10:02:00.000Z');
    expect(record.participants).toEqual([
      { id: 'dee@acme.test', role: 'internal', email: 'dee@acme.test', type: 'user', name: 'Dee Park' },
      { id: 'erin@hooli.example', role: 'external', email: 'erin@hooli.example', type: 'contact', name: 'Erin Moss' },
      { id: 'cto@hooli.example', role: 'external', email: 'cto@hooli.example', type: 'contact' },
    ]);
    expect(record.data).toMatchObject({
      subject: 'SSO before the rollout', from: { name: 'Erin Moss', email: 'erin@hooli.example' }, to: 'Dee Park <dee@acme.test>', cc: 'cto@hooli.example',
      date: '2026-11-16T10:02:00Z', forwarded_by: 'Dee Park <dee@acme.test>', forward_note: 'FYI: Hooli wants SSO before they roll out.',
    });
    const { rows: files } = await t.pool.query('SELECT filename, status, storage_key, stored_size, stored_mime_type, sha1 FROM attachments WHERE record_id = $1 ORDER BY position', [record.id]);
    expect(files.map((f) => [f.filename, f.status, f.stored_mime_type])).toEqual([['security-questionnaire.pdf', 'COMPLETE', 'application/pdf'], ['seats.csv', 'COMPLETE', 'text/csv']]);
    for (const f of files) {
      expect(f.storage_key).toMatch(new RegExp(`^${ws}/mail/`));
      const chunks: Buffer[] = [];
      for await (const c of await storage.get(f.storage_key)) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).length).toBe(Number(f.stored_size));
    }
    expect(Buffer.concat(await (async () => { const c: Buffer[] = []; for await (const x of await storage.get(files[1]!.storage_key)) c.push(x as Buffer); return c; })()).toString()).toBe('seat,team\n1,Sales\n2,Support\n');

    const [again] = await deliver(fixture('gmail-forward', token));
    expect(again).toMatchObject({ status: 'duplicate', attachments: 0 });
    expect((await t.pool.query('SELECT count(*)::int AS n FROM records WHERE workspace_id = $1', [ws])).rows[0].n).toBe(1);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM attachments WHERE workspace_id = $1", [ws])).rows[0].n).toBe(2);
    const onDisk = (await import('node:fs')).readdirSync(path.join(storage.root, ws, 'mail'));
    expect(onDisk).toHaveLength(2);
  });

  it('a forwarded thread becomes an email_thread, oldest first, its date the newest message\'s', async () => {
    const token = (await projectAddressToken(t.pool, ws, project, new Date()))!;
    const [outcome] = await deliver(fixture('outlook-forward', token));
    const { rows: [record] } = await t.pool.query('SELECT type, event_at, data, participants FROM records WHERE batch_id = $1', [outcome!.batchId]);
    expect(record.type).toBe('email_thread');
    expect(record.event_at.toISOString()).toBe('2026-11-17T16:45:00.000Z');
    expect(record.data.emails.map((e: { from: { email: string } }) => e.from.email)).toEqual(['chen@initech.example', 'dee@acme.test', 'chen@initech.example']);
    expect(record.participants.map((p: { id: string; role: string }) => `${p.id}:${p.role}`)).toEqual([
      'dee@acme.test:internal', 'chen@initech.example:external', 'support@acme.test:internal', 'ana@initech.example:external',
    ]);
  });

  it('the same thread forwarded at two stages: two records (each stage is what was said by then) of one _thread_id', async () => {
    const whole = await parseForward(fixture('outlook-forward', 'x'.repeat(26)));
    const start = { ...whole, messages: whole.messages.slice(0, 2) };
    const options = { internalDomains: ['acme.test'], inboundDomain: DOMAIN, files: [], filesLeftOut: 0, receivedAt: new Date() };
    const target = { workspaceId: ws, productId: 'prod_x', projectId: project };
    const [a, b] = [recordOfForward(whole, target, options), recordOfForward(start, target, options)];
    expect(a._thread_id).toMatch(/^email:[0-9a-f]{40}$/);
    expect(b._thread_id).toBe(a._thread_id);
    expect(b._vendor_ids).not.toEqual(a._vendor_ids);
    const other = await parseForward(fixture('gmail-forward', 'x'.repeat(26)));
    expect(recordOfForward(other, target, options)._thread_id).not.toBe(a._thread_id);
  });

  it('from a domain the workspace does not allow: refused with a 550 naming the domain and the fix, nothing stored', async () => {
    const token = (await projectAddressToken(t.pool, other, otherProject, new Date()))!;
    const before = (await t.pool.query('SELECT count(*)::int AS n FROM records')).rows[0].n;
    const error = await deliver(fixture('gmail-forward', token)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InboundRefusal);
    expect((error as InboundRefusal).responseCode).toBe(550);
    expect((error as Error).message).toContain('the sender dee@acme.test is not from a domain this workspace accepts forwarded mail from (acme.test is not allowed)');
    expect((error as Error).message).toContain('Email forwarding');
    expect((await t.pool.query('SELECT count(*)::int AS n FROM records')).rows[0].n).toBe(before);
  });

  it('goes where the envelope delivered it, not where its To header says', async () => {
    const token = (await projectAddressToken(t.pool, ws, project, new Date()))!;
    const raw = fixture('apple-forward', token);
    const error = await receiver.receive(await parseInboundMail(raw), raw, [forwardingAddress('b'.repeat(26), DOMAIN)]).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^5\.1\.1 No such mailbox/);
  });

  it('to an address that does not exist: refused as no such mailbox', async () => {
    const error = await deliver(fixture('apple-forward', 'a'.repeat(26))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InboundRefusal);
    expect((error as Error).message).toMatch(/^5\.1\.1 No such mailbox/);
  });
});
