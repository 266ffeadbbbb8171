import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, INVITATION_TTL_MS, MembershipError, type Accounts } from './index';

let t: TestDatabase;
let now = Date.UTC(2026, 10, 22, 12, 0, 0);
const clock = { now: () => now };
let accounts: Accounts;

beforeAll(async () => {
  t = await createTestDatabase();
  accounts = createAccounts({ pool: t.pool, clock, codeSecret: 'test-secret', mailer: { send: async () => {} } });
});
afterAll(() => t.close());

async function user(email: string) {
  const id = newId('usr');
  await t.pool.query('INSERT INTO users (id, email, email_verified) VALUES ($1, $2, true)', [id, email]);
  return { id, email };
}

describe('members and invitations', () => {
  it('invites by email, accepts only for that address, once, before it expires', async () => {
    const owner = await user('owner@a.test');
    const ws = await accounts.createWorkspaceFor(owner.id, 'Acme');
    const { token, invitation } = await accounts.invite(ws.id, owner.id, ' Bo@A.test ', 'member');
    expect(invitation).toMatchObject({ email: 'bo@a.test', role: 'member' });
    expect((await t.pool.query('SELECT token_hash FROM invitations')).rows[0].token_hash).not.toBe(token);
    expect(await accounts.pendingInvitations(ws.id)).toHaveLength(1);
    const eve = await user('eve@a.test');
    expect(await accounts.acceptInvitation(token, eve)).toEqual({ ok: false, reason: 'other_email', email: 'bo@a.test' });
    const bo = await user('bo@a.test');
    expect(await accounts.acceptInvitation(token, bo)).toMatchObject({ ok: true, workspaceId: ws.id, workspaceName: 'Acme' });
    expect(await accounts.acceptInvitation(token, bo)).toEqual({ ok: false, reason: 'used' });
    expect(await accounts.membership(bo.id, ws.id)).toBe('member');
    await expect(accounts.invite(ws.id, owner.id, 'bo@a.test', 'member')).rejects.toThrow(/already a member/);
    await expect(accounts.invite(ws.id, bo.id, 'x@a.test', 'member')).rejects.toBeInstanceOf(MembershipError);
    const late = await accounts.invite(ws.id, owner.id, 'late@a.test', 'admin');
    now += INVITATION_TTL_MS + 1;
    expect(await accounts.acceptInvitation(late.token, await user('late@a.test'))).toEqual({ ok: false, reason: 'expired' });
    expect(await accounts.acceptInvitation('nope', bo)).toEqual({ ok: false, reason: 'unknown' });
  });

  it("cancels a pending invitation of its own workspace only, and says so when there is none", async () => {
    const owner = await user('canceller@a.test');
    const mine = await accounts.createWorkspaceFor(owner.id, 'Mine');
    const otherOwner = await user('other-owner@a.test');
    const theirs = await accounts.createWorkspaceFor(otherOwner.id, 'Theirs');
    const foreign = await accounts.invite(theirs.id, otherOwner.id, 'x@a.test', 'member');
    await expect(accounts.cancelInvitation(mine.id, owner.id, foreign.invitation.id)).rejects.toThrow(/not pending in this workspace/);
    expect(await accounts.pendingInvitations(theirs.id)).toHaveLength(1);
    const own = await accounts.invite(mine.id, owner.id, 'y@a.test', 'member');
    await accounts.cancelInvitation(mine.id, owner.id, own.invitation.id);
    expect(await accounts.pendingInvitations(mine.id)).toHaveLength(0);
    await expect(accounts.cancelInvitation(mine.id, owner.id, own.invitation.id)).rejects.toBeInstanceOf(MembershipError);
  });

  it('keeps an owner, lets only owners touch owners, and revokes the keys of a removed member', async () => {
    const owner = await user('o2@a.test');
    const admin = await user('ad2@a.test');
    const member = await user('m2@a.test');
    const ws = await accounts.createWorkspaceFor(owner.id, 'Beta');
    for (const [u, role] of [[admin, 'admin'], [member, 'member']] as const) {
      await t.pool.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)', [ws.id, u.id, role]);
    }
    await expect(accounts.changeRole(ws.id, owner.id, owner.id, 'admin')).rejects.toThrow(/needs an owner/);
    await expect(accounts.changeRole(ws.id, admin.id, member.id, 'owner')).rejects.toThrow(/Only an owner/);
    await expect(accounts.changeRole(ws.id, member.id, admin.id, 'member')).rejects.toThrow(/Only owners and admins/);
    await accounts.changeRole(ws.id, admin.id, member.id, 'admin');
    expect((await accounts.listMembers(ws.id)).map((m) => [m.email, m.role])).toEqual([['o2@a.test', 'owner'], ['ad2@a.test', 'admin'], ['m2@a.test', 'admin']]);
    await t.pool.query(
      `INSERT INTO api_keys (id, workspace_id, created_by_user_id, name, display_prefix, secret_hash, permissions) VALUES ($1, $2, $3, 'k', 'p', $4, '{mcp:read}')`,
      [newId('key'), ws.id, member.id, newId('hash')],
    );
    await expect(accounts.removeMember(ws.id, admin.id, owner.id)).rejects.toThrow(/Only an owner/);
    expect(await accounts.removeMember(ws.id, admin.id, member.id)).toEqual({ keysRevoked: 1, invitationsCancelled: 0 });
    expect(await accounts.membership(member.id, ws.id)).toBeUndefined();
    await expect(accounts.removeMember(ws.id, owner.id, owner.id)).rejects.toThrow(/needs an owner/);
  });

  it('deletes an account with the workspaces it alone belonged to, but not while it is the only owner of a shared one', async () => {
    const solo = await user('solo@a.test');
    const own = await accounts.createWorkspaceFor(solo.id, 'Solo');
    const shared = await accounts.createWorkspaceFor(solo.id, 'Shared');
    const other = await user('other@a.test');
    await t.pool.query(`INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, 'member')`, [shared.id, other.id]);
    expect(await accounts.accountDeletionPlan(solo.id)).toEqual({ soleWorkspaces: [{ id: own.id, name: 'Solo' }], blockedBy: [{ id: shared.id, name: 'Shared' }] });
    await expect(accounts.deleteAccount(solo.id)).rejects.toThrow(/only owner of Shared/);
    await accounts.changeRole(shared.id, solo.id, other.id, 'owner');
    await accounts.deleteAccount(solo.id);
    expect((await t.pool.query('SELECT id FROM workspaces WHERE id = ANY($1)', [[own.id, shared.id]])).rows.map((r) => r.id)).toEqual([shared.id]);
    expect((await t.pool.query('SELECT 1 FROM users WHERE id = $1', [solo.id])).rowCount).toBe(0);
  });

  it('lets the operator add a person by email (creating the account) and remove them', async () => {
    const owner = await user('o4@a.test');
    const ws = await accounts.createWorkspaceFor(owner.id, 'Ops');
    expect(await accounts.addMember(ws.id, 'New@A.test', 'member')).toMatchObject({ created: true });
    const added = await accounts.userByEmail('new@a.test');
    expect(await accounts.membership(added!.id, ws.id)).toBe('member');
    expect(await accounts.addMember(ws.id, 'new@a.test', 'admin')).toMatchObject({ created: false });
    expect(await accounts.membership(added!.id, ws.id)).toBe('admin');
    await expect(accounts.addMember('ws_missing', 'x@a.test', 'member')).rejects.toThrow(/not found/);
    await accounts.removeMember(ws.id, null, added!.id);
    expect(await accounts.membership(added!.id, ws.id)).toBeUndefined();
    await expect(accounts.removeMember(ws.id, null, owner.id)).rejects.toThrow(/needs an owner/);
  });
});
