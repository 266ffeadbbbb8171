import { balance, WELCOME_CREDITS } from '@loupe/credits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createAccounts, InvalidWorkspaceNameError, type Accounts } from './index';

let t: TestDatabase;
let now = Date.UTC(2026, 10, 22, 12, 0, 0);
const clock = { now: () => now };
const sent: Array<{ to: string; subject: string; text: string; kind: string }> = [];
let accounts: Accounts;

beforeAll(async () => {
  t = await createTestDatabase();
  accounts = createAccounts({ pool: t.pool, clock, codeSecret: 'test-secret', mailer: { send: async (m) => void sent.push(m) } });
});
afterAll(() => t.close());

const lastCode = (email: string) => {
  const mail = [...sent].reverse().find((m) => m.to === email)!;
  const m = /(\d{3}) (\d{3})/.exec(mail.text)!;
  return `${m[1]}${m[2]}`;
};

describe('email sign-in codes', () => {
  it('mails a 6-digit code that signs in once and creates the account the first time', async () => {
    expect(await accounts.requestSignInCode({ email: ' Ada@Acme.TEST ', ip: '10.0.0.1' })).toEqual({ ok: true, expiresInSeconds: 600 });
    const mail = sent.at(-1)!;
    expect(mail).toMatchObject({ to: 'ada@acme.test', kind: 'sign-in-code', subject: 'Your Loupe sign-in code' });
    expect(mail.text).toContain('expires in 10 minutes');
    const code = lastCode('ada@acme.test');
    const first = await accounts.verifySignInCode({ email: 'ada@acme.test', code: `${code.slice(0, 3)}-${code.slice(3)}` });
    expect(first).toMatchObject({ ok: true, created: true, user: { email: 'ada@acme.test' } });
    expect(await accounts.verifySignInCode({ email: 'ada@acme.test', code })).toEqual({ ok: false, reason: 'invalid_code' });
    await accounts.requestSignInCode({ email: 'ada@acme.test', ip: '10.0.0.1' });
    const second = await accounts.verifySignInCode({ email: 'ada@acme.test', code: lastCode('ada@acme.test') });
    expect(second).toMatchObject({ ok: true, created: false });
    if (first.ok && second.ok) expect(second.user.id).toBe(first.user.id);
  });

  it('valid at 9:59, expired at 10:00', async () => {
    await accounts.requestSignInCode({ email: 'clock@acme.test', ip: '10.0.0.2' });
    const code = lastCode('clock@acme.test');
    now += 9 * 60_000 + 59_000;
    expect((await accounts.verifySignInCode({ email: 'clock@acme.test', code })).ok).toBe(true);
    await accounts.requestSignInCode({ email: 'clock@acme.test', ip: '10.0.0.2' });
    now += 10 * 60_000;
    expect(await accounts.verifySignInCode({ email: 'clock@acme.test', code: lastCode('clock@acme.test') })).toEqual({ ok: false, reason: 'expired' });
  });

  it('five wrong guesses kill the code, even for the right one afterwards', async () => {
    await accounts.requestSignInCode({ email: 'guess@acme.test', ip: '10.0.0.3' });
    const code = lastCode('guess@acme.test');
    const wrong = code === '000000' ? '111111' : '000000';
    const results = await Promise.all(Array.from({ length: 8 }, () => accounts.verifySignInCode({ email: 'guess@acme.test', code: wrong })));
    expect(results.filter((r) => !r.ok && r.reason === 'invalid_code').length).toBeLessThanOrEqual(4);
    expect(await accounts.verifySignInCode({ email: 'guess@acme.test', code })).toEqual({ ok: false, reason: 'too_many_attempts' });
  });

  it('a newer code replaces the older one', async () => {
    await accounts.requestSignInCode({ email: 'twice@acme.test', ip: '10.0.0.4' });
    const old = lastCode('twice@acme.test');
    await accounts.requestSignInCode({ email: 'twice@acme.test', ip: '10.0.0.4' });
    const fresh = lastCode('twice@acme.test');
    if (old !== fresh) expect((await accounts.verifySignInCode({ email: 'twice@acme.test', code: old })).ok).toBe(false);
    expect((await accounts.verifySignInCode({ email: 'twice@acme.test', code: fresh })).ok).toBe(true);
  });

  it('20 concurrent uses of the right code: exactly one signs in', async () => {
    await accounts.requestSignInCode({ email: 'race@acme.test', ip: '10.0.0.5' });
    const code = lastCode('race@acme.test');
    const results = await Promise.all(Array.from({ length: 20 }, () => accounts.verifySignInCode({ email: 'race@acme.test', code })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it('5 codes per address and 20 per IP address an hour', async () => {
    now = Math.ceil(now / 3600_000) * 3600_000 + 1000;
    for (let i = 0; i < 5; i++) expect((await accounts.requestSignInCode({ email: 'limit@acme.test', ip: `10.1.0.${i}` })).ok).toBe(true);
    const refused = await accounts.requestSignInCode({ email: 'limit@acme.test', ip: '10.1.0.9' });
    expect(refused).toMatchObject({ ok: false, reason: 'rate_limited', retryAfterSeconds: expect.any(Number) });
    const before = sent.length;
    for (let i = 0; i < 20; i++) expect((await accounts.requestSignInCode({ email: `ip${i}@acme.test`, ip: '10.2.0.1' })).ok).toBe(true);
    expect((await accounts.requestSignInCode({ email: 'ip20@acme.test', ip: '10.2.0.1' })).ok).toBe(false);
    expect(sent.length - before).toBe(20);
    now += 3600_000;
    expect((await accounts.requestSignInCode({ email: 'limit@acme.test', ip: '10.1.0.9' })).ok).toBe(true);
  });

  it('refuses what is not an email address', async () => {
    for (const email of ['', 'nope', 'a@', '@b.c', 'x'.repeat(300) + '@a.b']) {
      expect(await accounts.requestSignInCode({ email, ip: '10.0.0.6' })).toEqual({ ok: false, reason: 'invalid_email' });
    }
  });
});

describe('workspaces of a user', () => {
  it('creates one with its owner, lists by name, and refuses bad names', async () => {
    await accounts.requestSignInCode({ email: 'owner@acme.test', ip: '10.0.0.8' });
    const r = await accounts.verifySignInCode({ email: 'owner@acme.test', code: lastCode('owner@acme.test') });
    if (!r.ok) throw new Error('sign-in failed');
    expect(await accounts.workspacesOf(r.user.id)).toEqual([]);
    const b = await accounts.createWorkspaceFor(r.user.id, '  beta ');
    await accounts.createWorkspaceFor(r.user.id, 'Alpha');
    expect((await accounts.workspacesOf(r.user.id)).map((w) => [w.name, w.role])).toEqual([['Alpha', 'owner'], ['beta', 'owner']]);
    expect(await accounts.membership(r.user.id, b.id)).toBe('owner');
    expect(await accounts.membership(r.user.id, 'ws_other')).toBeUndefined();
    // A new workspace can use the MCP tools at once: it starts with the welcome credits.
    expect(await balance(t.pool, b.id)).toBe(WELCOME_CREDITS);
    await expect(accounts.createWorkspaceFor('usr_gone', 'Ghost')).rejects.toThrow(/not found/);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM workspaces WHERE name = 'Ghost'`)).rows[0].n).toBe(0);
    await expect(accounts.createWorkspaceFor(r.user.id, '   ')).rejects.toBeInstanceOf(InvalidWorkspaceNameError);
    await expect(accounts.createWorkspaceFor(r.user.id, 'x'.repeat(81))).rejects.toBeInstanceOf(InvalidWorkspaceNameError);
  });
});
