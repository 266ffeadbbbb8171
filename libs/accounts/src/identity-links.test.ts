import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { harness, MINUTE } from './test/harness';

let t: TestDatabase;
let h: ReturnType<typeof harness>;
beforeAll(async () => {
  t = await createTestDatabase();
  h = harness(t);
});
afterAll(() => t.close());

const linksOf = async (userId: string) =>
  (await t.pool.query('SELECT provider, subject, email FROM identity_links WHERE user_id = $1 ORDER BY provider', [userId])).rows;

describe('signInWithIdentity (spec 5.2 rule 1)', () => {
  it('creates a verified user for a new identity with a verified email, then finds it by (provider, subject)', async () => {
    const first = await h.accounts.signInWithIdentity({ provider: 'google', subject: 'g-1', email: ' New@Acme.TEST ', emailVerified: true });
    expect(first).toMatchObject({ ok: true, linked: 'new_user', user: { email: 'new@acme.test' } });
    if (!first.ok) throw new Error('unreachable');
    const { rows } = await t.pool.query('SELECT email_verified FROM users WHERE id = $1', [first.user.id]);
    expect(rows).toEqual([{ email_verified: true }]);

    h.advance(5 * MINUTE);
    // The provider's email changed: the link, not the email, decides.
    const again = await h.accounts.signInWithIdentity({ provider: 'google', subject: 'g-1', email: 'renamed@acme.test', emailVerified: false });
    expect(again).toEqual({ ok: true, linked: 'existing_link', user: first.user });
    const link = await t.pool.query('SELECT email, created_at, last_used_at FROM identity_links WHERE provider = $1 AND subject = $2', ['google', 'g-1']);
    expect(link.rows[0].email).toBe('renamed@acme.test');
    expect(link.rows[0].last_used_at.getTime() - link.rows[0].created_at.getTime()).toBe(5 * MINUTE);
  });

  it('links a verified email to the existing email-code account', async () => {
    await h.accounts.requestSignInCode({ email: 'ada@acme.test', ip: '10.0.0.1' });
    const signedIn = await h.accounts.verifySignInCode({ email: 'ada@acme.test', code: h.lastCode('ada@acme.test') });
    if (!signedIn.ok) throw new Error('email sign-in failed');
    const result = await h.accounts.signInWithIdentity({ provider: 'okta', subject: '00u1', email: 'ADA@acme.test', emailVerified: true });
    expect(result).toEqual({ ok: true, linked: 'linked_by_email', user: signedIn.user });
    expect(await linksOf(signedIn.user.id)).toEqual([{ provider: 'okta', subject: '00u1', email: 'ada@acme.test' }]);
  });

  it('never links or creates with an unverified email, and refuses a missing one', async () => {
    const before = (await t.pool.query('SELECT count(*)::int AS n FROM users')).rows[0].n;
    expect(await h.accounts.signInWithIdentity({ provider: 'okta', subject: 'evil', email: 'ada@acme.test', emailVerified: false })).toEqual({ ok: false, reason: 'email_not_verified' });
    expect(await h.accounts.signInWithIdentity({ provider: 'okta', subject: 'evil', email: 'someone@acme.test' })).toEqual({ ok: false, reason: 'email_not_verified' });
    expect(await h.accounts.signInWithIdentity({ provider: 'okta', subject: 'nomail', email: undefined, emailVerified: true })).toEqual({ ok: false, reason: 'no_email' });
    expect(await h.accounts.signInWithIdentity({ provider: 'okta', subject: 'nomail', email: 'not an email', emailVerified: true })).toEqual({ ok: false, reason: 'no_email' });
    expect((await t.pool.query('SELECT count(*)::int AS n FROM users')).rows[0].n).toBe(before);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM identity_links WHERE subject IN ('evil', 'nomail')")).rows[0].n).toBe(0);
  });

  it('keeps the same subject at different providers apart, and survives concurrent first sign-ins', async () => {
    const a = await h.accounts.signInWithIdentity({ provider: 'google', subject: 'same', email: 'one@acme.test', emailVerified: true });
    const b = await h.accounts.signInWithIdentity({ provider: 'okta', subject: 'same', email: 'two@acme.test', emailVerified: true });
    expect(a.ok && b.ok && a.user.id !== b.user.id).toBe(true);

    const racing = await Promise.all([1, 2, 3, 4].map(() => h.accounts.signInWithIdentity({ provider: 'google', subject: 'race', email: 'race@acme.test', emailVerified: true })));
    const ids = new Set(racing.map((r) => (r.ok ? r.user.id : r.reason)));
    expect(ids.size).toBe(1);
    expect(racing.filter((r) => r.ok && r.linked === 'new_user')).toHaveLength(1);
  });

  it('a link disappears with its user', async () => {
    const r = await h.accounts.signInWithIdentity({ provider: 'google', subject: 'gone', email: 'gone@acme.test', emailVerified: true });
    if (!r.ok) throw new Error('unreachable');
    await t.pool.query('DELETE FROM users WHERE id = $1', [r.user.id]);
    expect(await linksOf(r.user.id)).toEqual([]);
  });
});
