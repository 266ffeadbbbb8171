import { createHash, createHmac, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type session from 'express-session';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedSessionStore, SIGN_IN_CODE_MAX_ATTEMPTS, SIGN_IN_CODE_TTL_MS, signInCodeMail } from './index';
import { CODE_SECRET, HOUR, MINUTE, START, harness } from './test/harness';

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('email sign-in codes', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  const codeRows = async (email: string) =>
    (
      await t.pool.query<{ id: string; code_hash: string; attempts: number; ip: string | null; created_at: Date; expires_at: Date; consumed_at: Date | null }>(
        'SELECT * FROM sign_in_codes WHERE email = $1 ORDER BY created_at, id',
        [email],
      )
    ).rows;

  it('mails a 6-digit code to the normalised address and stores only its HMAC, bound to the row', async () => {
    const h = harness(t);
    expect(await h.accounts.requestSignInCode({ email: '  Ada@Example.COM ', ip: '10.0.1.1' })).toEqual({ ok: true, expiresInSeconds: 600 });
    expect(h.sent).toHaveLength(1);
    const mail = h.sent[0]!;
    expect(mail).toMatchObject({ to: 'ada@example.com', kind: 'sign-in-code' });
    expect(mail.subject).toBe('Your Loupe sign-in code');
    const code = h.lastCode('ada@example.com');
    const spaced = `${code.slice(0, 3)} ${code.slice(3)}`;
    expect(mail.text).toContain(spaced);
    expect(mail.text).toMatch(/expires in 10 minutes/);
    expect(mail.text).toMatch(/works once/);
    expect(mail.text).toMatch(/did not try to sign in.*ignore this email/);
    expect(mail.html).toContain(spaced);
    expect(mail.html).toMatch(/expires in 10 minutes/);
    expect(mail.html).not.toMatch(/<style|<script|class=/);

    const [row] = await codeRows('ada@example.com');
    expect(row).toMatchObject({ attempts: 0, ip: '10.0.1.1', consumed_at: null });
    expect(row!.id).toMatch(/^sic_/);
    expect(row!.code_hash).toBe(createHmac('sha256', CODE_SECRET).update(`${row!.id}:${code}`).digest('hex'));
    expect(row!.created_at.getTime()).toBe(START);
    expect(row!.expires_at.getTime()).toBe(START + SIGN_IN_CODE_TTL_MS);
  });

  it('escapes what it puts into the HTML body', () => {
    const mail = signInCodeMail(`o'brien<b>@example.com`, '012345');
    expect(mail.subject).toBe('Your Loupe sign-in code');
    expect(mail.localOnly).toEqual({ signInCode: '012 345' });
    expect(mail.html).toContain('o&#39;brien&#60;b&#62;@example.com');
    expect(mail.html).not.toContain('<b>');
  });

  it('refuses invalid addresses without sending or counting anything', async () => {
    const h = harness(t);
    const invalid = ['', '   ', 'ada', 'ada@', '@example.com', 'ada@example', 'a b@example.com', 'ada@@example.com', `${'x'.repeat(250)}@example.com`];
    for (const email of invalid) {
      expect(await h.accounts.requestSignInCode({ email, ip: '10.0.2.1' }), email).toEqual({ ok: false, reason: 'invalid_email' });
      expect(await h.accounts.verifySignInCode({ email, code: '123456' })).toEqual({ ok: false, reason: 'invalid_code' });
    }
    expect(h.sent).toHaveLength(0);
    const { rows } = await t.pool.query("SELECT key FROM rate_limit_counters WHERE key = 'signin-ip:10.0.2.1'");
    expect(rows).toHaveLength(0);
  });

  it('accepts the code until 9:59 and calls it expired at 10:00', async () => {
    const h = harness(t);
    await h.accounts.requestSignInCode({ email: 'early@example.com', ip: '10.0.3.1' });
    h.advance(10 * MINUTE - 1000);
    expect(await h.accounts.verifySignInCode({ email: 'early@example.com', code: h.lastCode('early@example.com') })).toMatchObject({ ok: true });

    const late = harness(t);
    await late.accounts.requestSignInCode({ email: 'late@example.com', ip: '10.0.3.1' });
    late.advance(10 * MINUTE - 1);
    const code = late.lastCode('late@example.com');
    late.advance(1);
    expect(await late.accounts.verifySignInCode({ email: 'late@example.com', code })).toEqual({ ok: false, reason: 'expired' });
  });

  it('works once', async () => {
    const h = harness(t);
    await h.accounts.requestSignInCode({ email: 'once@example.com', ip: '10.0.4.1' });
    const code = h.lastCode('once@example.com');
    expect(await h.accounts.verifySignInCode({ email: 'once@example.com', code })).toMatchObject({ ok: true });
    expect(await h.accounts.verifySignInCode({ email: 'once@example.com', code })).toEqual({ ok: false, reason: 'invalid_code' });
    const [row] = await codeRows('once@example.com');
    expect(row!.consumed_at?.getTime()).toBe(START);
  });

  it('accepts a code typed with a space, a dash or surrounding blanks, and the address in any case', async () => {
    const h = harness(t);
    const email = 'typist@example.com';
    for (const style of [(c: string) => `${c.slice(0, 3)} ${c.slice(3)}`, (c: string) => `${c.slice(0, 3)}-${c.slice(3)}`, (c: string) => ` ${c}\t`]) {
      await h.accounts.requestSignInCode({ email, ip: '10.0.5.1' });
      const typed = style(h.lastCode(email));
      expect(await h.accounts.verifySignInCode({ email: ' Typist@Example.com', code: typed }), typed).toMatchObject({ ok: true });
    }
  });

  it('of 20 concurrent uses of the right code, exactly one signs in', async () => {
    const h = harness(t);
    await h.accounts.requestSignInCode({ email: 'race@example.com', ip: '10.0.6.1' });
    const code = h.lastCode('race@example.com');
    const results = await Promise.all(Array.from({ length: 20 }, () => h.accounts.verifySignInCode({ email: 'race@example.com', code })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual(Array.from({ length: 19 }, () => ({ ok: false, reason: 'invalid_code' })));
    const { rows } = await t.pool.query("SELECT id FROM users WHERE email = 'race@example.com'");
    expect(rows).toHaveLength(1);
  });

  it('kills the code after 5 wrong attempts, even for the right code', async () => {
    const h = harness(t);
    await h.accounts.requestSignInCode({ email: 'guess@example.com', ip: '10.0.7.1' });
    const code = h.lastCode('guess@example.com');
    for (let i = 1; i < SIGN_IN_CODE_MAX_ATTEMPTS; i++) {
      expect(await h.accounts.verifySignInCode({ email: 'guess@example.com', code: wrong(code) }), `attempt ${i}`).toEqual({ ok: false, reason: 'invalid_code' });
    }
    // The fifth wrong guess is the last: it says so.
    expect(await h.accounts.verifySignInCode({ email: 'guess@example.com', code: 'abcdef' })).toEqual({ ok: false, reason: 'too_many_attempts' });
    expect(await h.accounts.verifySignInCode({ email: 'guess@example.com', code })).toEqual({ ok: false, reason: 'too_many_attempts' });
    expect((await codeRows('guess@example.com'))[0]).toMatchObject({ attempts: 5, consumed_at: null });
  });

  it('accepts the right code after 4 wrong attempts', async () => {
    const h = harness(t);
    await h.accounts.requestSignInCode({ email: 'fourth@example.com', ip: '10.0.7.2' });
    const code = h.lastCode('fourth@example.com');
    for (let i = 0; i < 4; i++) await h.accounts.verifySignInCode({ email: 'fourth@example.com', code: wrong(code) });
    expect(await h.accounts.verifySignInCode({ email: 'fourth@example.com', code })).toMatchObject({ ok: true });
  });

  it('never counts more than 5 attempts, however many wrong guesses arrive at once', async () => {
    const h = harness(t);
    await h.accounts.requestSignInCode({ email: 'swarm@example.com', ip: '10.0.8.1' });
    const code = h.lastCode('swarm@example.com');
    const results = await Promise.all(Array.from({ length: 15 }, () => h.accounts.verifySignInCode({ email: 'swarm@example.com', code: wrong(code) })));
    expect(results.every((r) => !r.ok)).toBe(true);
    expect((await codeRows('swarm@example.com'))[0]!.attempts).toBe(5);
    expect(await h.accounts.verifySignInCode({ email: 'swarm@example.com', code })).toEqual({ ok: false, reason: 'too_many_attempts' });
  });

  it('a newer code supersedes the older one, and a new code revives sign-in after too many attempts', async () => {
    const h = harness(t);
    const email = 'twice@example.com';
    await h.accounts.requestSignInCode({ email, ip: '10.0.9.1' });
    const first = h.lastCode(email);
    h.advance(MINUTE);
    await h.accounts.requestSignInCode({ email, ip: '10.0.9.1' });
    const second = h.lastCode(email);
    const [older, newer] = await codeRows(email);
    expect(older!.consumed_at?.getTime()).toBe(START + MINUTE);
    expect(newer!.consumed_at).toBeNull();
    if (first !== second) {
      expect(await h.accounts.verifySignInCode({ email, code: first })).toEqual({ ok: false, reason: 'invalid_code' });
    }
    expect(await h.accounts.verifySignInCode({ email, code: second })).toMatchObject({ ok: true });

    await h.accounts.requestSignInCode({ email, ip: '10.0.9.1' });
    const dead = h.lastCode(email);
    for (let i = 0; i < 5; i++) await h.accounts.verifySignInCode({ email, code: wrong(dead) });
    await h.accounts.requestSignInCode({ email, ip: '10.0.9.1' });
    expect(await h.accounts.verifySignInCode({ email, code: h.lastCode(email) })).toMatchObject({ ok: true });
  });

  it('refuses a code when none was requested', async () => {
    const h = harness(t);
    expect(await h.accounts.verifySignInCode({ email: 'nobody@example.com', code: '123456' })).toEqual({ ok: false, reason: 'invalid_code' });
  });

  it('sends at most 5 codes per address an hour, and again in the next hour', async () => {
    const h = harness(t, START + 30 * MINUTE);
    const email = 'busy@example.com';
    for (let i = 0; i < 5; i++) {
      expect(await h.accounts.requestSignInCode({ email, ip: `10.1.0.${i}` }), `request ${i + 1}`).toMatchObject({ ok: true });
    }
    h.advance(9 * MINUTE);
    expect(await h.accounts.requestSignInCode({ email: 'BUSY@example.com', ip: '10.1.0.9' })).toEqual({ ok: false, reason: 'rate_limited', retryAfterSeconds: 21 * 60 });
    expect(h.sent).toHaveLength(5);
    expect(await codeRows(email)).toHaveLength(5);
    // The refusal left the live code alone.
    expect(await h.accounts.verifySignInCode({ email, code: h.lastCode(email) })).toMatchObject({ ok: true });
    h.setTime(START + HOUR - 1);
    expect(await h.accounts.requestSignInCode({ email, ip: '10.1.0.9' })).toMatchObject({ ok: false, reason: 'rate_limited', retryAfterSeconds: 1 });
    h.setTime(START + HOUR);
    expect(await h.accounts.requestSignInCode({ email, ip: '10.1.0.9' })).toMatchObject({ ok: true });
    expect(h.sent).toHaveLength(6);
  });

  it('sends at most 20 codes per IP address an hour', async () => {
    const h = harness(t);
    for (let i = 0; i < 20; i++) {
      expect(await h.accounts.requestSignInCode({ email: `person${i}@example.com`, ip: '192.0.2.7' }), `request ${i + 1}`).toMatchObject({ ok: true });
    }
    expect(await h.accounts.requestSignInCode({ email: 'person20@example.com', ip: '192.0.2.7' })).toEqual({
      ok: false,
      reason: 'rate_limited',
      retryAfterSeconds: 3600,
    });
    expect(h.sent.map((m) => m.to)).not.toContain('person20@example.com');
    expect(await h.accounts.requestSignInCode({ email: 'person20@example.com', ip: '192.0.2.8' })).toMatchObject({ ok: true });
  });

  it('creates the account on the first sign-in, finds it on the second, and verifies a known address', async () => {
    const h = harness(t);
    await h.accounts.requestSignInCode({ email: 'New@Example.com', ip: '10.0.10.1' });
    const first = await h.accounts.verifySignInCode({ email: 'new@example.com', code: h.lastCode('new@example.com') });
    expect(first).toMatchObject({ ok: true, created: true, user: { email: 'new@example.com' } });
    if (!first.ok) throw new Error('unreachable');
    expect(first.user.id).toMatch(/^usr_/);
    expect(await h.accounts.findUser(first.user.id)).toEqual({ id: first.user.id, email: 'new@example.com', emailVerified: true });

    h.advance(HOUR);
    await h.accounts.requestSignInCode({ email: 'new@example.com', ip: '10.0.10.1' });
    const second = await h.accounts.verifySignInCode({ email: 'new@example.com', code: h.lastCode('new@example.com') });
    expect(second).toEqual({ ok: true, created: false, user: first.user });

    // A user who exists unverified (invited by an admin) signs in: found, and now verified.
    await t.pool.query("INSERT INTO users (id, email, email_verified) VALUES ('usr_invited', 'invited@example.com', false)");
    await h.accounts.requestSignInCode({ email: 'invited@example.com', ip: '10.0.10.1' });
    expect(await h.accounts.verifySignInCode({ email: 'invited@example.com', code: h.lastCode('invited@example.com') })).toEqual({
      ok: true,
      created: false,
      user: { id: 'usr_invited', email: 'invited@example.com' },
    });
    expect(await h.accounts.findUser('usr_invited')).toMatchObject({ emailVerified: true });
    expect(await h.accounts.findUser('usr_missing')).toBeUndefined();
  });

  it('keeps no code and no session token in clear anywhere in sign_in_codes or web_sessions', async () => {
    const h = harness(t);
    const email = 'secret@example.com';
    await h.accounts.requestSignInCode({ email, ip: '10.0.11.1' });
    const used = h.lastCode(email);
    const result = await h.accounts.verifySignInCode({ email, code: used });
    if (!result.ok) throw new Error(`sign-in failed: ${result.reason}`);
    await h.accounts.requestSignInCode({ email, ip: '10.0.11.1' });
    const live = h.lastCode(email);
    const token = randomBytes(32).toString('base64url');
    const store = new HashedSessionStore(t.pool, () => {});
    await promisify<void>((cb) => store.set(token, { cookie: { originalMaxAge: 1000, expires: new Date(Date.now() + 1000) }, userId: result.user.id } as unknown as session.SessionData, cb))();
    store.close();

    const { rows: columns } = await t.pool.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name IN ('sign_in_codes', 'web_sessions')
          AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')`,
    );
    expect(columns.map((c) => `${c.table_name}.${c.column_name}`).sort()).toEqual([
      'sign_in_codes.code_hash', 'sign_in_codes.email', 'sign_in_codes.id', 'sign_in_codes.ip', 'web_sessions.sess', 'web_sessions.sid', 'web_sessions.user_id',
    ]);
    const values: string[] = [];
    for (const { table_name, column_name } of columns) {
      const { rows } = await t.pool.query<{ v: string | null }>(`SELECT "${column_name}"::text AS v FROM "${table_name}"`);
      values.push(...rows.map((r) => r.v ?? ''));
    }
    expect(values.length).toBeGreaterThan(0);
    for (const secret of [used, live, `${used.slice(0, 3)} ${used.slice(3)}`, `${live.slice(0, 3)} ${live.slice(3)}`, token]) {
      expect(values.filter((v) => v.includes(secret))).toEqual([]);
    }
    const { rows: sessions } = await t.pool.query('SELECT sid FROM web_sessions WHERE user_id = $1', [result.user.id]);
    expect(sessions).toEqual([{ sid: createHash('sha256').update(token).digest('hex') }]);
  });
});
