import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer, listOutbox, MailError, type MailLogger, type MailMessage } from './index';
import { startSmtpSink, type SmtpSink } from './test/smtp-sink';

const FROM = 'Loupe <no-reply@loupe.localhost>';

function recordingLog() {
  const entries: { obj: Record<string, unknown>; msg: string }[] = [];
  const log: MailLogger = { info: (obj, msg) => entries.push({ obj, msg }) };
  return { log, entries };
}

const signInCode = (to: string, code: string): MailMessage => ({
  to,
  subject: 'Your Loupe sign-in code',
  text: `Your sign-in code is ${code}.\n\nIt expires in 10 minutes.`,
  html: `<p>Your sign-in code is <strong>${code}</strong>.</p>`,
  kind: 'sign-in-code',
  localOnly: { signInCode: code },
});

async function outboxCount(t: TestDatabase): Promise<number> {
  const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM mail_outbox');
  return rows[0]!.n;
}

describe('mail', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  describe('the local outbox (no SMTP_URL)', () => {
    it('stores each message, lists them newest first, filters by recipient and logs the body', async () => {
      let now = Date.parse('2026-11-22T10:00:00.000Z');
      const { log, entries } = recordingLog();
      const mailer = createMailer({ from: FROM, pool: t.pool, log, clock: { now: () => now } });

      await mailer.send(signInCode('ada@acme.test', '111111'));
      now += 1000;
      await mailer.send(signInCode('grace@acme.test', '222222'));
      now += 1000;
      await mailer.send({ to: 'Ada Lovelace <ada@acme.test>', subject: 'Notebook was connected', text: 'Connected.', kind: 'connection-confirmation' });

      const all = await listOutbox(t.pool);
      expect(all.map((m) => [m.to, m.kind])).toEqual([
        ['ada@acme.test', 'connection-confirmation'],
        ['grace@acme.test', 'sign-in-code'],
        ['ada@acme.test', 'sign-in-code'],
      ]);
      expect(all[2]).toMatchObject({
        subject: 'Your Loupe sign-in code',
        text: 'Your sign-in code is 111111.\n\nIt expires in 10 minutes.',
        createdAt: new Date('2026-11-22T10:00:00.000Z'),
      });
      expect(all[0]!.id).toMatch(/^mail_[0-9a-z]{26}$/);

      const ada = await listOutbox(t.pool, { to: 'ada@acme.test' });
      expect(ada.map((m) => m.subject)).toEqual(['Notebook was connected', 'Your Loupe sign-in code']);
      expect(await listOutbox(t.pool, { to: 'ada@acme.test', limit: 1 })).toHaveLength(1);
      expect(await listOutbox(t.pool, { to: 'nobody@acme.test' })).toEqual([]);

      const { rows } = await t.pool.query<{ html_body: string | null }>(
        "SELECT html_body FROM mail_outbox WHERE to_address = 'grace@acme.test'",
      );
      expect(rows[0]!.html_body).toBe('<p>Your sign-in code is <strong>222222</strong>.</p>');

      // Issue 23 item 4: the log line is recipient, kind and id; only the code, and it says why.
      expect(entries).toHaveLength(3);
      expect(entries[0]).toEqual({
        msg: 'mail written to the local outbox; no SMTP_URL is set, so this line shows its signInCode for signing in on this machine (with SMTP_URL it is mailed and never logged)',
        obj: { to: 'ada@acme.test', kind: 'sign-in-code', id: expect.stringMatching(/^mail_/), signInCode: '111111' },
      });
      expect(entries[2]).toEqual({
        msg: 'mail written to the local outbox (read it with npm run admin -- mail list)',
        obj: { to: 'ada@acme.test', kind: 'connection-confirmation', id: all[0]!.id },
      });
    });

    it('never logs a link, a token or a reply address of a message', async () => {
      const { log, entries } = recordingLog();
      const mailer = createMailer({ from: FROM, pool: t.pool, log });
      const token = 'tok_' + 'x'.repeat(40);
      await mailer.send({
        to: 'bo@acme.test', subject: 'Invitation to a Loupe workspace', kind: 'invitation',
        text: `Accept: http://localhost:8080/account/invitations/${token}`, html: `<a href="http://localhost/account/invitations/${token}">Accept</a>`,
      });
      await mailer.send({
        to: 'ada@acme.test', subject: 'An application was connected', text: 'Connected.', kind: 'connection-confirmation',
        replyTo: `revoke+${token}@replies.loupe.test`, messageId: '<m1@replies.loupe.test>',
      });
      expect(entries).toHaveLength(2);
      expect(JSON.stringify(entries)).not.toContain(token);
      expect(entries.map((e) => Object.keys(e.obj).sort())).toEqual([['id', 'kind', 'to'], ['id', 'kind', 'to']]);
      // The outbox keeps the reply address for `npm run admin -- mail list` on this machine.
      expect((await listOutbox(t.pool, { to: 'ada@acme.test', limit: 1 }))[0]!.replyTo).toBe(`revoke+${token}@replies.loupe.test`);
    });

    it('refuses a message without a valid recipient, and stores nothing', async () => {
      const before = await outboxCount(t);
      const mailer = createMailer({ from: FROM, pool: t.pool, log: recordingLog().log });
      await expect(mailer.send(signInCode('', '1'))).rejects.toThrow(/no recipient/);
      await expect(mailer.send(signInCode('not an address', '1'))).rejects.toThrow(MailError);
      await expect(mailer.send(signInCode('not an address', '1'))).rejects.toThrow(/No valid recipient address in "not an address"/);
      expect(await outboxCount(t)).toBe(before);
    });

    it('refuses a limit out of range', async () => {
      await expect(listOutbox(t.pool, { limit: 0 })).rejects.toThrow(/limit/);
      await expect(listOutbox(t.pool, { limit: 1.5 })).rejects.toThrow(/limit/);
    });
  });

  describe('SMTP (SMTP_URL set)', () => {
    let sink: SmtpSink;
    beforeAll(async () => {
      sink = await startSmtpSink();
    });
    afterAll(() => sink.close());

    it('delivers to the SMTP server, stores nothing in the outbox and never logs the body', async () => {
      const before = await outboxCount(t);
      const { log, entries } = recordingLog();
      const mailer = createMailer({ smtpUrl: sink.url, from: FROM, pool: t.pool, log });
      await mailer.send(signInCode('ada@acme.test', '424242'));

      expect(sink.received).toHaveLength(1);
      const mail = sink.received[0]!;
      expect(mail.from).toBe('no-reply@loupe.localhost');
      expect(mail.to).toEqual(['ada@acme.test']);
      expect(mail.data).toMatch(/^Subject: Your Loupe sign-in code\r$/m);
      expect(mail.data).toMatch(/^From: Loupe <no-reply@loupe\.localhost>\r$/m);
      expect(mail.data).toMatch(/^To: ada@acme\.test\r$/m);
      expect(mail.data).toContain('Your sign-in code is 424242.');
      expect(mail.data).toContain('multipart/alternative');

      expect(await outboxCount(t)).toBe(before);
      expect(entries).toHaveLength(1);
      expect(entries[0]!.msg).toBe('mail sent');
      expect(entries[0]!.obj).toEqual({ to: 'ada@acme.test', kind: 'sign-in-code', messageId: expect.stringMatching(/^<.+>$/), server: `smtp://127.0.0.1:${sink.port}` });
      expect(JSON.stringify(entries)).not.toContain('424242');
      expect(mail.data).not.toMatch(/^Subject: .*424/m);
    });

    it('rejects naming the server and its answer when the recipient is refused', async () => {
      const mailer = createMailer({ smtpUrl: sink.url, from: FROM, pool: t.pool, log: recordingLog().log });
      const sent = mailer.send(signInCode('nobody@acme.test', '1'));
      await expect(sent).rejects.toThrow(MailError);
      await expect(mailer.send(signInCode('nobody@acme.test', '1'))).rejects.toThrow(
        new RegExp(`Could not send the sign-in-code mail to nobody@acme\\.test through smtp://127\\.0\\.0\\.1:${sink.port}: .*550`),
      );
    });

    it('rejects naming the problem when the SMTP server refuses the connection, and stores nothing', async () => {
      const closed = await startSmtpSink();
      await closed.close();
      const before = await outboxCount(t);
      const { log, entries } = recordingLog();
      const mailer = createMailer({ smtpUrl: `smtp://mailer:s3cret@127.0.0.1:${closed.port}`, from: FROM, pool: t.pool, log });
      const error = await mailer.send(signInCode('ada@acme.test', '1')).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(MailError);
      expect(error!.message).toMatch(
        new RegExp(`^Could not send the sign-in-code mail to ada@acme\\.test through smtp://127\\.0\\.0\\.1:${closed.port}: .*ECONNREFUSED`),
      );
      expect(error!.message).not.toContain('s3cret');
      expect(entries).toEqual([]);
      expect(await outboxCount(t)).toBe(before);
    });
  });
});
