import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidWorkspaceNameError, UnknownUserError } from './index';
import { START, harness } from './test/harness';

describe('the workspaces of a user', () => {
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

  it('creates a workspace owned by its creator and lists a user\'s workspaces by name, with roles', async () => {
    const h = harness(t);
    const user = await signedIn(h);
    const other = await signedIn(h);
    expect(await h.accounts.workspacesOf(user.id)).toEqual([]);
    const zeta = await h.accounts.createWorkspaceFor(user.id, '  Zeta Labs  ');
    expect(zeta).toEqual({ id: expect.stringMatching(/^ws_/), name: 'Zeta Labs', welcomeCredits: true });
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
