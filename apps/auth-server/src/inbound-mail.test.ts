import nodemailer from 'nodemailer';
import { createLogger, systemClock } from '@loupe/http';
import { startInboundSmtp, type InboundSmtp } from '@loupe/mail';
import { isReplyAddress } from '@loupe/oauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundReplyHandler } from './inbound-mail';
import { connect, exchange, refresh, type Client } from './test/flow';
import { Person, registerClient, startAuthServer, type AuthHarness } from './test/harness';

const DOMAIN = 'replies.loupe.test';
const SECRET = 'inbound-secret-0123456789';
let h: AuthHarness;
let client: Client;
let smtp: InboundSmtp;
beforeAll(async () => {
  h = await startAuthServer({ replies: { domain: DOMAIN, webhookSecret: SECRET } });
  client = (await registerClient(h.url, { client_name: 'Reply Tests' })).body as Client;
  const handle = inboundReplyHandler({ pool: h.pool, clock: systemClock, mailer: { send: async (m) => void h.mail.push(m) }, log: createLogger('silent'), domain: DOMAIN });
  smtp = await startInboundSmtp({ host: '127.0.0.1', port: 0, accepts: (a) => isReplyAddress(a, DOMAIN), onMessage: async (m) => void (await handle(m)) });
});
afterAll(async () => {
  await smtp.close();
  await h.close();
});

/** A person connects the client for the first time; returns their tokens and the confirmation mail. */
async function connectFirstTime(email: string) {
  const person = new Person(h, email);
  const tokens = (await exchange(h, client, await connect(person, client, { workspaceName: `Team of ${email}` }))).body;
  const mail = h.mail.filter((m) => m.to === email && m.kind === 'connection-confirmation').at(-1)!;
  return { tokens, mail };
}

const smtpTransport = () => nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });

describe('revoke by replying to the confirmation mail', () => {
  it('gives each first connection an unguessable reply address, and a reply over SMTP revokes it', async () => {
    const { tokens, mail } = await connectFirstTime('ada@replies.test');
    expect(mail.replyTo).toMatch(new RegExp(`^revoke\\+[\\w-]{43}@${DOMAIN.replace(/\./g, '\\.')}$`));
    expect(mail.messageId).toMatch(new RegExp(`^<[\\w-]+@${DOMAIN.replace(/\./g, '\\.')}>$`));
    expect(mail.text).toContain('Reply to this email');
    expect((await refresh(h, client, tokens.refresh_token)).status).toBe(200);

    await smtpTransport().sendMail({
      from: 'Ada <ada@replies.test>', to: mail.replyTo, subject: `Re: ${mail.subject}`, text: 'REVOKE', inReplyTo: mail.messageId, references: [mail.messageId!],
    });
    const { rows } = await h.pool.query('SELECT revoked_at FROM oauth_grants g JOIN users u ON u.id = g.user_id WHERE u.email = $1', ['ada@replies.test']);
    expect(rows[0].revoked_at).toBeInstanceOf(Date);
    expect((await refresh(h, client, tokens.refresh_token)).body.error).toBe('invalid_grant');
    const answer = h.mail.filter((m) => m.to === 'ada@replies.test' && m.kind === 'revocation-confirmation');
    expect(answer).toHaveLength(1);
    expect(answer[0]!.subject).toBe('An application was disconnected from your Loupe workspace');
  });

  it('refuses forged replies: another address, a replay, another person with the right token, and relaying', async () => {
    const { tokens, mail } = await connectFirstTime('bo@replies.test');
    const other = await connectFirstTime('cy@replies.test');
    const send = (from: string, to: string, inReplyTo?: string) => smtpTransport().sendMail({ from, to, subject: 'Re', text: 'REVOKE', ...(inReplyTo ? { inReplyTo } : {}) });
    // The right token, but from someone else and not answering the message.
    await send('mallory@evil.test', mail.replyTo!);
    // cy answers their own message but with bo's token in the address: neither matches bo's grant.
    await send('cy@replies.test', mail.replyTo!, other.mail.messageId);
    // An address we never handed out is refused at RCPT TO, as is any other recipient (no relaying).
    await expect(send('bo@replies.test', `revoke+${'A'.repeat(43)}@${DOMAIN}`)).resolves.toBeTruthy(); // accepted shape, unknown token: no effect
    await expect(send('bo@replies.test', 'someone@elsewhere.test')).rejects.toThrow(/550/);
    expect((await refresh(h, client, tokens.refresh_token)).status).toBe(200);
    const otherRefreshed = await refresh(h, client, other.tokens.refresh_token);
    expect(otherRefreshed.status).toBe(200);
    // The real reply revokes; replaying it does nothing more.
    await send('bo@replies.test', mail.replyTo!);
    await send('bo@replies.test', mail.replyTo!);
    expect(h.mail.filter((m) => m.to === 'bo@replies.test' && m.kind === 'revocation-confirmation')).toHaveLength(1);
    expect((await refresh(h, client, otherRefreshed.body.refresh_token)).status).toBe(200); // cy's connection stands
  });

  it('takes replies from a hosted inbound-mail service over the webhook, with the shared secret only', async () => {
    const { tokens, mail } = await connectFirstTime('dee@replies.test');
    const post = (body: unknown, headers: Record<string, string>) =>
      fetch(`${h.url}/inbound/mail`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const postmark = { From: 'dee@replies.test', FromFull: { Email: 'dee@replies.test' }, To: mail.replyTo, ToFull: [{ Email: mail.replyTo }], Subject: 'Re', TextBody: 'REVOKE', Headers: [{ Name: 'In-Reply-To', Value: mail.messageId }] };
    expect((await post(postmark, {})).status).toBe(401);
    expect((await post(postmark, { authorization: 'Bearer wrong-secret-0123456789' })).status).toBe(401);
    expect((await post({ hello: 1 }, { authorization: `Bearer ${SECRET}` })).status).toBe(400);
    const ok = await post(postmark, { authorization: `Bearer ${SECRET}` });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ outcome: 'revoked' });
    expect((await refresh(h, client, tokens.refresh_token)).body.error).toBe('invalid_grant');
    const raw = `From: dee@replies.test\r\nTo: ${mail.replyTo}\r\nSubject: Re\r\nIn-Reply-To: ${mail.messageId}\r\n\r\nREVOKE\r\n`;
    const again = await fetch(`${h.url}/inbound/mail`, { method: 'POST', headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${SECRET}` }, body: raw });
    expect(await again.json()).toEqual({ outcome: 'already_used' });
  });

  it('reads Postmark JSON with plain To and From strings and raw text/plain, and says what is wrong with other bodies', async () => {
    const { tokens, mail } = await connectFirstTime('eli@replies.test');
    const auth = { authorization: `Bearer ${SECRET}` };
    const post = (body: string, type: string, headers: Record<string, string> = auth) =>
      fetch(`${h.url}/inbound/mail`, { method: 'POST', headers: { 'content-type': type, ...headers }, body });
    // Malformed bodies: 400, nothing revoked. Too large: 413, before anything is parsed.
    expect((await post('{"To": ', 'application/json')).status).toBe(400);
    expect((await post('[1, 2]', 'application/json')).status).toBe(400);
    expect((await post('', 'message/rfc822')).status).toBe(400);
    expect((await post('x'.repeat(1024 * 1024 + 10), 'message/rfc822')).status).toBe(413);
    expect((await post('x'.repeat(1024 * 1024 + 10), 'message/rfc822', {})).status).toBe(401);
    // Well-formed but revoking nothing is still 200, so the provider does not retry.
    const stranger = await post(JSON.stringify({ From: 'eli@replies.test', To: 'support@replies.loupe.test', TextBody: 'hi' }), 'application/json');
    expect(stranger.status).toBe(200);
    expect(await stranger.json()).toEqual({ outcome: 'not_a_reply_address' });
    // A Postmark document without the parsed lists, from someone else and answering nothing: refused.
    const forged = await post(JSON.stringify({ From: 'Mallory <mallory@evil.test>', To: `"Loupe" <${mail.replyTo}>`, TextBody: 'REVOKE', Headers: [] }), 'application/json');
    expect(await forged.json()).toEqual({ outcome: 'sender_mismatch' });
    expect((await refresh(h, client, tokens.refresh_token)).status).toBe(200);
    // The same message as the raw text/plain body, from the person: revoked.
    const raw = `From: "Eli" <ELI@replies.test>\r\nTo: Loupe <${mail.replyTo}>\r\nSubject: Re: ${mail.subject}\r\n\r\nREVOKE\r\n`;
    const ok = await post(raw, 'text/plain');
    expect(await ok.json()).toEqual({ outcome: 'revoked' });
    expect((await refresh(h, client, tokens.refresh_token)).body.error).toBe('invalid_grant');
    const answer = h.mail.filter((m) => m.to === 'eli@replies.test' && m.kind === 'revocation-confirmation');
    expect(answer).toHaveLength(1);
    expect(answer[0]!.text).toMatch(/^We disconnected Reply Tests from the Loupe workspace "Team of eli@replies.test"/);
  });

  it('refuses a message over 1 MB at the SMTP receiver', async () => {
    const { tokens, mail } = await connectFirstTime('fin@replies.test');
    await expect(smtpTransport().sendMail({ from: 'fin@replies.test', to: mail.replyTo, subject: 'Re', text: 'REVOKE\n' + 'x'.repeat(1024 * 1024) })).rejects.toThrow(/552/);
    expect((await refresh(h, client, tokens.refresh_token)).status).toBe(200);
  });
});

describe('the inbound mail webhook without INBOUND_MAIL_SECRET', () => {
  it('answers 404, whatever the Authorization header', async () => {
    const bare = await startAuthServer({ replies: { domain: DOMAIN } });
    try {
      const res = await fetch(`${bare.url}/inbound/mail`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` }, body: '{"To": "x@y.test"}' });
      expect(res.status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
