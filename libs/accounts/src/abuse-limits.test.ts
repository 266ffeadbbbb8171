import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { migrationsDir } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createRateLimiter } from '@loupe/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, INVITATION_LIMITS, InvitationLimitError, WORKSPACE_CREATION_LIMITS, WorkspaceLimitError } from './index';
import { HOUR, START, harness } from './test/harness';

// Issue 23 items 3 and 5 (and 8: invitations of a removed person): what one signed-in person could
// farm or send under our name before these limits.
describe('limits on what one person can make', () => {
  let t: TestDatabase;
  let n = 0;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  async function signedIn(h: ReturnType<typeof harness>, email = `person${++n}@example.com`) {
    await h.accounts.requestSignInCode({ email, ip: `10.23.0.${n}` });
    const result = await h.accounts.verifySignInCode({ email, code: h.lastCode(email.toLowerCase()) });
    if (!result.ok) throw new Error(`sign-in failed: ${result.reason}`);
    return result.user;
  }
  const balance = async (workspaceId: string) =>
    (await t.pool.query<{ credit_balance: number }>('SELECT credit_balance FROM workspaces WHERE id = $1', [workspaceId])).rows[0]!.credit_balance;
  const welcomeGrants = async (workspaceIds: string[]) =>
    (await t.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM credit_ledger WHERE reference = 'welcome' AND workspace_id = ANY($1::text[])", [workspaceIds])).rows[0]!.n;

  it('welcome credits go to the first workspace of a person only, even after deleting the account', async () => {
    const h = harness(t, START);
    const user = await signedIn(h, 'farmer@example.com');
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await h.accounts.createWorkspaceFor(user.id, `Farm ${i}`));
    expect(made.map((w) => w.welcomeCredits)).toEqual([true, false, false, false, false]);
    expect(await Promise.all(made.map((w) => balance(w.id)))).toEqual([100, 0, 0, 0, 0]);
    expect(await welcomeGrants(made.map((w) => w.id))).toBe(1);

    // The same address, as a new account: no second welcome.
    await h.accounts.deleteAccount(user.id);
    h.advance(2 * HOUR);
    const again = await signedIn(h, 'Farmer@Example.com');
    const next = await h.accounts.createWorkspaceFor(again.id, 'Farm again');
    expect(next.welcomeCredits).toBe(false);
    expect(await balance(next.id)).toBe(0);
  });

  it('the migration records who had welcome credits before the table existed', async () => {
    const h = harness(t, START + 5 * HOUR);
    const early = await signedIn(h, 'Early@Example.com');
    const first = await h.accounts.createWorkspaceFor(early.id, 'Before the fix');
    expect(first.welcomeCredits).toBe(true);
    // As it was before: a welcome grant, and no record of its recipient.
    await t.pool.query('DELETE FROM welcome_credit_recipients WHERE workspace_id = $1', [first.id]);
    await t.pool.query(await readFile(path.join(migrationsDir, '20261124100200_welcome_credit_backfill', 'migration.sql'), 'utf8'));
    const { rows } = await t.pool.query('SELECT workspace_id FROM welcome_credit_recipients WHERE workspace_id = $1', [first.id]);
    expect(rows).toHaveLength(1);
    h.advance(HOUR);
    expect((await h.accounts.createWorkspaceFor(early.id, 'After the fix')).welcomeCredits).toBe(false);
  });

  it(`at most ${WORKSPACE_CREATION_LIMITS.perHour} new workspaces an hour and ${WORKSPACE_CREATION_LIMITS.maxOwned} owned per person`, async () => {
    const h = harness(t, START + 10 * HOUR);
    const user = await signedIn(h);
    for (let i = 0; i < WORKSPACE_CREATION_LIMITS.perHour; i++) await h.accounts.createWorkspaceFor(user.id, `W${i}`);
    const refused = await h.accounts.createWorkspaceFor(user.id, 'One more').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorkspaceLimitError);
    expect((refused as WorkspaceLimitError).message).toBe('You created 5 workspaces in the last hour, the most Loupe allows; try again in 60 minutes.');
    expect((refused as WorkspaceLimitError).retryAfterSeconds).toBe(3600);
    h.advance(HOUR);
    for (let i = 5; i < WORKSPACE_CREATION_LIMITS.maxOwned; i++) await h.accounts.createWorkspaceFor(user.id, `W${i}`);
    h.advance(HOUR);
    await expect(h.accounts.createWorkspaceFor(user.id, 'Eleventh')).rejects.toThrow(
      /^You own 10 workspaces, the most Loupe allows \(10\); delete one or hand its ownership to someone else first\.$/,
    );
    expect(await h.accounts.workspacesOf(user.id)).toHaveLength(WORKSPACE_CREATION_LIMITS.maxOwned);
  });

  it('concurrent creations by one person cannot pass the cap together', async () => {
    const h = harness(t, START + 30 * HOUR);
    const user = await signedIn(h);
    const outcomes = [];
    for (let round = 0; round < 3; round++) {
      outcomes.push(...(await Promise.allSettled(Array.from({ length: 5 }, (_, i) => h.accounts.createWorkspaceFor(user.id, `C${round}-${i}`)))));
      h.advance(HOUR);
    }
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(WORKSPACE_CREATION_LIMITS.maxOwned);
    expect(await h.accounts.workspacesOf(user.id)).toHaveLength(WORKSPACE_CREATION_LIMITS.maxOwned);
  });

  it(`at most ${INVITATION_LIMITS.perPersonPerHour} invitations an hour per person and ${INVITATION_LIMITS.perWorkspacePerDay} a day per workspace`, async () => {
    const h = harness(t, START + 60 * HOUR);
    const owner = await signedIn(h);
    const ws = await h.accounts.createWorkspaceFor(owner.id, 'Spam Inc');
    for (let i = 0; i < INVITATION_LIMITS.perPersonPerHour; i++) await h.accounts.invite(ws.id, owner.id, `target${i}@victims.test`, 'member');
    const refused = await h.accounts.invite(ws.id, owner.id, 'one-more@victims.test', 'member').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvitationLimitError);
    expect((refused as Error).message).toMatch(/^You have sent 20 invitations recently, the most Loupe allows; try again in \d+ minutes\.$/);
    // Another admin of the same workspace: the workspace's own day limit.
    const admin = await signedIn(h);
    await h.accounts.addMember(ws.id, admin.email, 'admin');
    for (let i = 0; i < INVITATION_LIMITS.perPersonPerHour; i++) await h.accounts.invite(ws.id, admin.id, `more${i}@victims.test`, 'member');
    h.advance(HOUR);
    for (let i = 0; i < 10; i++) await h.accounts.invite(ws.id, owner.id, `later${i}@victims.test`, 'member');
    await expect(h.accounts.invite(ws.id, owner.id, 'fifty-first@victims.test', 'member')).rejects.toThrow(
      /^This workspace has sent 50 invitations recently, the most Loupe allows; try again in \d+ (minutes|hours)\.$/,
    );
  });

  it(`at most ${INVITATION_LIMITS.pendingPerWorkspace} pending invitations per workspace, whatever the rates`, async () => {
    let now = START + 100 * HOUR;
    const clock = { now: () => now };
    const unlimited = createRateLimiter(t.pool, { limit: 1_000_000, windowMs: HOUR, clock });
    const accounts = createAccounts({
      pool: t.pool, clock, codeSecret: 'x', mailer: { send: async () => {} },
      limiters: { invitationsPerPerson: unlimited, invitationsPerWorkspace: unlimited },
    });
    const owner = (await t.pool.query<{ id: string }>("INSERT INTO users (id, email, email_verified) VALUES ('usr_pending', 'pending@example.com', true) RETURNING id")).rows[0]!;
    const ws = await accounts.createWorkspaceFor(owner.id, 'Pending');
    await Promise.all(Array.from({ length: INVITATION_LIMITS.pendingPerWorkspace }, (_, i) => accounts.invite(ws.id, owner.id, `p${i}@victims.test`, 'member')));
    await expect(accounts.invite(ws.id, owner.id, 'p-over@victims.test', 'member')).rejects.toThrow(
      /^This workspace has 50 pending invitations, the most Loupe allows; cancel some, or wait until they are accepted or expire\.$/,
    );
    const pending = await accounts.pendingInvitations(ws.id);
    await accounts.cancelInvitation(ws.id, owner.id, pending[0]!.id);
    await accounts.invite(ws.id, owner.id, 'p-after-cancel@victims.test', 'member');
    now += 8 * 24 * HOUR; // all expired
    await accounts.invite(ws.id, owner.id, 'p-after-expiry@victims.test', 'member');
  });

  it('removing a person cancels the invitations they sent there; deleting the account cancels them everywhere', async () => {
    const h = harness(t, START + 200 * HOUR);
    const owner = await signedIn(h);
    const admin = await signedIn(h);
    const ws = await h.accounts.createWorkspaceFor(owner.id, 'Team');
    await h.accounts.addMember(ws.id, admin.email, 'admin');
    await h.accounts.invite(ws.id, admin.id, 'friend1@example.com', 'member');
    const kept = await h.accounts.invite(ws.id, owner.id, 'friend2@example.com', 'member');
    expect(await h.accounts.removeMember(ws.id, owner.id, admin.id)).toEqual({ keysRevoked: 0, invitationsCancelled: 1 });
    expect((await h.accounts.pendingInvitations(ws.id)).map((i) => i.id)).toEqual([kept.invitation.id]);
    expect(await h.accounts.describeInvitation(kept.token)).toMatchObject({ usable: true });

    const other = await signedIn(h);
    const own = await h.accounts.createWorkspaceFor(other.id, 'Own');
    await h.accounts.addMember(ws.id, other.email, 'admin');
    const sent = await h.accounts.invite(ws.id, other.id, 'friend3@example.com', 'member');
    await h.accounts.invite(own.id, other.id, 'friend4@example.com', 'member');
    await h.accounts.deleteAccount(other.id);
    expect(await h.accounts.describeInvitation(sent.token)).toBeUndefined();
    expect((await h.accounts.pendingInvitations(ws.id)).map((i) => i.email)).toEqual(['friend2@example.com']);
  });
});
