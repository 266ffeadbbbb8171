import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { startInboundSmtp, type InboundSmtp } from '@loupe/mail';
import { createLocalStorage } from '@loupe/storage';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import nodemailer from 'nodemailer';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardingAddress, projectAddressToken, setSenderDomains } from './addresses';
import { createForwardingReceiver } from './receive';

// The forwarding receiver behind the real SMTP server, fed what a hostile or careless sender sends.
const DOMAIN = 'in.loupe.test';
let t: TestDatabase;
let boss: Boss;
let smtp: InboundSmtp;
let storage: ReturnType<typeof createLocalStorage>;
let ws: string;
let address: string;

const send = (raw: string | Buffer, from = 'dee@acme.test', to = address) =>
  nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true })
    .sendMail({ envelope: { from, to: [to] }, raw })
    .then((info) => ({ code: 250, response: info.response }), (e: { responseCode?: number; response?: string }) => ({ code: e.responseCode, response: e.response ?? '' }));
const records = async () => (await t.pool.query('SELECT type, data, participants FROM records WHERE workspace_id = $1 ORDER BY received_at, id', [ws])).rows;
const files = () => { try { return readdirSync(path.join(storage.root, ws, 'mail')); } catch { return []; } };

function mailWith(parts: { subject: string; text?: string; html?: string; files?: number; from?: string }) {
  const boundary = 'b-hostile';
  const attachments = Array.from({ length: parts.files ?? 0 }, (_, i) => [
    `--${boundary}`, `Content-Type: text/plain; name="note-${i}.txt"`, `Content-Disposition: attachment; filename="note-${i}.txt"`, '', `file ${i}`, ''].join('\r\n'));
  return [
    `From: ${parts.from ?? 'Dee Park <dee@acme.test>'}`, `To: ${address}`, `Subject: ${parts.subject}`, 'Date: Tue, 17 Nov 2026 09:00:00 +0000', 'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`, '',
    `--${boundary}`, parts.html ? 'Content-Type: text/html; charset=utf-8' : 'Content-Type: text/plain; charset=utf-8', '', parts.html ?? parts.text ?? '', '',
    ...attachments, `--${boundary}--`, '',
  ].join('\r\n');
}

beforeAll(async () => {
  t = await createTestDatabase();
  boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
  const project = (await createProject(t.db, ws, (await createProduct(t.db, ws, { name: 'App' })).id, { name: 'Support' })).id;
  await setSenderDomains(t.pool, ws, ['acme.test'], new Date());
  address = forwardingAddress((await projectAddressToken(t.pool, ws, project, new Date()))!, DOMAIN);
  storage = createLocalStorage(mkdtempSync(path.join(tmpdir(), 'loupe-fwd-smtp-')));
  const forwarding = createForwardingReceiver({ pool: t.pool, boss, storage, clock: { now: () => Date.now() }, log: pino({ level: 'silent' }), domain: DOMAIN });
  smtp = await startInboundSmtp({
    host: '127.0.0.1', port: await freePort(), maxBytes: 64 * 1024, accepts: forwarding.accepts,
    onMessage: async (mail, raw, envelope) => void (await forwarding.receive(mail, raw, envelope.to)),
  });
});

afterAll(async () => {
  await smtp?.close();
  await boss?.stop({ graceful: false, close: true });
  await t?.close();
});

describe('the SMTP receiver with forwarding addresses', () => {
  it('refuses a message with no From, bytes that are no mail, and one over the size limit, each with its reason, storing nothing', async () => {
    expect(await send('Subject: nobody\r\n\r\nhello\r\n', 'dee@acme.test')).toMatchObject({ code: 550 });
    const garbage = await send(Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x0d, 0x0a, 0x0d, 0x0a, 0x80, 0x81]), '');
    expect(garbage.code).toBe(550);
    expect(garbage.response).toContain('names no sender');
    const big = await send(mailWith({ subject: 'big', text: 'x'.repeat(100 * 1024) }));
    expect(big).toMatchObject({ code: 552 });
    expect(big.response).toContain('Message larger than 65536 bytes');
    expect(await records()).toEqual([]);
    expect(files()).toEqual([]);
  });

  it('an HTML-only forward is read from its text; twelve files keep ten and say so', async () => {
    const html = '<div>FYI</div><div>---------- Forwarded message ---------<br>From: <b>Erin Moss</b> &lt;erin@hooli.example&gt;<br>Date: Mon, 16 Nov 2026 at 10:02<br>Subject: Audit logs<br>To: Dee &lt;dee@acme.test&gt;<br><br><p>We need audit logs.</p></div>';
    expect(await send(mailWith({ subject: 'Fwd: Audit logs', html, files: 12 }))).toMatchObject({ code: 250 });
    const [record] = await records();
    expect(record.type).toBe('email');
    expect(record.data.from).toEqual({ name: 'Erin Moss', email: 'erin@hooli.example' });
    expect(record.data.body).toContain('We need audit logs.');
    expect(record.data.attachments_left_out).toMatch(/^2 more attachment\(s\)/);
    expect(files()).toHaveLength(10);
  });

  it('an out-of-office reply to the address is taken and dropped', async () => {
    const before = (await records()).length;
    const raw = mailWith({ subject: 'Automatic reply: SSO', text: 'I am out of the office until Monday.' }).replace('MIME-Version: 1.0', 'Auto-Submitted: auto-replied\r\nMIME-Version: 1.0');
    expect(await send(raw)).toMatchObject({ code: 250 });
    expect((await records()).length).toBe(before);
  });

  it('the same mail delivered twice at once is stored once, its files once', async () => {
    const raw = mailWith({ subject: 'Export to CSV', text: 'From: Sam <sam@globex.example>\nDate: Mon, 16 Nov 2026 at 11:00\nSubject: Export to CSV\n\nCSV please.', files: 2 });
    const before = files().length;
    const answers = await Promise.all([send(raw), send(raw)]);
    expect(answers.map((a) => a.code)).toEqual([250, 250]);
    expect((await records()).filter((r) => r.data.subject === 'Export to CSV')).toHaveLength(1);
    expect(files().length).toBe(before + 2);
  });
});
