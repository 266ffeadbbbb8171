import { createHash } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidWorkspaceNameError, UnknownUserError, WEB_SESSION_TTL_MS } from './index';
import { DAY, MINUTE, START, harness } from './test/harness';

describe('web sessions and the workspaces of a user', () => {
  let t: TestDatabase;
  let n = 0;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  /** A user signed in through a code, as the pages do it. */
  async function signedIn(h: ReturnType<typeof harness>, email = `user${++n}@example.com`) {
    await h.accounts.requestSignInCode({ email, ip: `10.9.0.${n}` });
    const result = await h.accounts.verifySignInCode({ email, code: h.lastCode(email) });
    if (!result.ok) throw new Error(`sign-in failed: ${result.reason}`);
    return result.user;
  }

  const session = async (token: string) =>
    (await t.pool.query<{ created_at: Date; expires_at: Date; last_seen_at: Date }>('SELECT * FROM web_sessions WHERE id_hash = $1', [
      createHash('sha256').update(token).digest('hex'),
    ])).rows[0];

  it('a session lives 14 days: found a millisecond before, gone at the end', async () => {
    const h = harness(t);
    const user = await signedIn(h);
    const { token, expiresAt } = await h.accounts.createWebSession(user.id);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(expiresAt).toBe(START + 14 * DAY);
    expect(WEB_SESSION_TTL_MS).toBe(14 * DAY);
    expect(await session(token)).toMatchObject({ created_at: new Date(START), expires_at: new Date(START + 14 * DAY) });
    expect(await h.accounts.findWebSession(token)).toEqual({ user, expiresAt });
    h.advance(14 * DAY - 1);
    expect(await h.accounts.findWebSession(token)).toEqual({ user, expiresAt });
    h.advance(1);
    expect(await h.accounts.findWebSession(token)).toBeUndefined();
  });

  it('refuses unknown, malformed and ended sessions, and ending one leaves the others', async () => {
    const h = harness(t);
    const user = await signedIn(h);
    const a = await h.accounts.createWebSession(user.id);
    const b = await h.accounts.createWebSession(user.id);
    expect(a.token).not.toBe(b.token);
    expect(await h.accounts.findWebSession('')).toBeUndefined();
    expect(await h.accounts.findWebSession(`${a.token.slice(0, -1)}${a.token.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    expect(await h.accounts.findWebSession('x'.repeat(10_000))).toBeUndefined();
    await h.accounts.endWebSession(a.token);
    expect(await h.accounts.findWebSession(a.token)).toBeUndefined();
    expect(await h.accounts.findWebSession(b.token)).toMatchObject({ user });
    await h.accounts.endWebSession(a.token); // ending twice is harmless
    await t.pool.query('DELETE FROM users WHERE id = $1', [user.id]);
    expect(await h.accounts.findWebSession(b.token)).toBeUndefined();
    expect(await session(b.token)).toBeUndefined();
  });

  it('records when a session was last seen at most once a minute', async () => {
    const h = harness(t);
    const user = await signedIn(h);
    const { token } = await h.accounts.createWebSession(user.id);
    h.advance(MINUTE);
    await h.accounts.findWebSession(token);
    expect((await session(token))!.last_seen_at.getTime()).toBe(START);
    h.advance(1);
    await h.accounts.findWebSession(token);
    expect((await session(token))!.last_seen_at.getTime()).toBe(START + MINUTE + 1);
    h.advance(30_000);
    await h.accounts.findWebSession(token);
    expect((await session(token))!.last_seen_at.getTime()).toBe(START + MINUTE + 1);
  });

  it('creates a workspace owned by its creator and lists a user\'s workspaces by name, with roles', async () => {
    const h = harness(t);
    const user = await signedIn(h);
    const other = await signedIn(h);
    expect(await h.accounts.workspacesOf(user.id)).toEqual([]);
    const zeta = await h.accounts.createWorkspaceFor(user.id, '  Zeta Labs  ');
    expect(zeta).toEqual({ id: expect.stringMatching(/^ws_/), name: 'Zeta Labs' });
    const alpha = await h.accounts.createWorkspaceFor(user.id, 'alpha');
    const shared = await h.accounts.createWorkspaceFor(other.id, 'Beta');
    await t.pool.query("INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, 'member')", [shared.id, user.id]);

    expect(await h.accounts.workspacesOf(user.id)).toEqual([
      { id: alpha.id, name: 'alpha', role: 'owner' },
      { id: shared.id, name: 'Beta', role: 'member' },
      { id: zeta.id, name: 'Zeta Labs', role: 'owner' },
    ]);
    expect(await h.accounts.workspacesOf(other.id)).toEqual([{ id: shared.id, name: 'Beta', role: 'owner' }]);
    expect(await h.accounts.membership(user.id, zeta.id)).toBe('owner');
    expect(await h.accounts.membership(user.id, shared.id)).toBe('member');
    expect(await h.accounts.membership(other.id, zeta.id)).toBeUndefined();
    expect(await h.accounts.membership(user.id, 'ws_missing')).toBeUndefined();
    const { rows } = await t.pool.query('SELECT created_at FROM workspaces WHERE id = $1', [zeta.id]);
    expect(rows[0].created_at.getTime()).toBe(START);
  });

  it('names a workspace with 1 to 80 characters once trimmed', async () => {
    const h = harness(t);
    const user = await signedIn(h);
    for (const bad of ['', '    ', '\n\t', 'x'.repeat(81), ` ${'y'.repeat(81)} `]) {
      const attempt = h.accounts.createWorkspaceFor(user.id, bad);
      await expect(attempt).rejects.toBeInstanceOf(InvalidWorkspaceNameError);
      await expect(attempt).rejects.toThrow(/1 to 80 characters/);
    }
    expect(await h.accounts.createWorkspaceFor(user.id, 'x')).toMatchObject({ name: 'x' });
    expect(await h.accounts.createWorkspaceFor(user.id, ` ${'z'.repeat(80)} `)).toMatchObject({ name: 'z'.repeat(80) });
    expect(await h.accounts.workspacesOf(user.id)).toHaveLength(2);
  });

  it('creates nothing for an unknown user', async () => {
    const h = harness(t);
    const { rows: before } = await t.pool.query('SELECT count(*)::int AS n FROM workspaces');
    await expect(h.accounts.createWorkspaceFor('usr_missing', 'Ghost')).rejects.toBeInstanceOf(UnknownUserError);
    const { rows: after } = await t.pool.query('SELECT count(*)::int AS n FROM workspaces');
    expect(after[0].n).toBe(before[0].n);
  });
});
