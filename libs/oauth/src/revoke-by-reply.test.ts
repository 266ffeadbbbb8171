import { createHash, randomBytes } from 'node:crypto';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessTokenVerifier, createReplyAddress, isReplyAddress, refreshTokenGrant, revokeByReply } from './index';

let t: TestDatabase;
const clock = { now: () => Date.now() };
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

/**
 * A workspace, its user and a live connection with an access and a refresh token, as the
 * authorization server leaves them; `existingUser` connects a person who already has an account.
 */
async function connection(email: string, existingUser?: string) {
  const ws = newId('ws');
  const user = existingUser ?? newId('usr');
  const grantId = newId('grant');
  await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'W']);
  if (!existingUser) await t.pool.query('INSERT INTO users (id, email, email_verified) VALUES ($1, $2, true)', [user, email]);
  await t.pool.query(`INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, 'owner')`, [ws, user]);
  await t.pool.query(`INSERT INTO oauth_grants (grant_id, workspace_id, user_id, client_id, client_name, scopes) VALUES ($1, $2, $3, 'cli_x', 'Notebook', '{mcp:read}')`, [grantId, ws, user]);
  const token = `loupe_at_${randomBytes(32).toString('base64url')}`;
  await t.pool.query(
    `INSERT INTO oauth_models (model, id_hash, grant_id, payload, expires_at) VALUES ('AccessToken', $1, $2, $3, now() + interval '1 hour')`,
    [createHash('sha256').update(token).digest('hex'), grantId, JSON.stringify({ accountId: user, clientId: 'cli_x', grantId, scope: 'mcp:read', exp: Math.floor(Date.now() / 1000) + 3600, kind: 'AccessToken' })],
  );
  const refreshToken = `loupe_rt_${randomBytes(32).toString('base64url')}`;
  await t.pool.query(
    `INSERT INTO oauth_models (model, id_hash, grant_id, payload, expires_at) VALUES ('RefreshToken', $1, $2, $3, now() + interval '30 days')`,
    [createHash('sha256').update(refreshToken).digest('hex'), grantId, JSON.stringify({ accountId: user, clientId: 'cli_x', grantId, scope: 'mcp:read', kind: 'RefreshToken' })],
  );
  const messageId = `<${randomBytes(8).toString('hex')}@replies.test>`;
  const address = await createReplyAddress(t.pool, { grantId, workspaceId: ws, userId: user, messageId, domain: 'replies.test' }, clock);
  return { ws, user, grantId, token, refreshToken, messageId, address, email };
}

describe('revoking by replying to the confirmation mail', () => {
  it('revokes the grant and its tokens when the person replies from their address, once', async () => {
    const c = await connection('ada@reply.test');
    const check = createAccessTokenVerifier({ pool: t.pool, clock, servicePrefix: 'loupe_' });
    expect((await check(c.token)).ok).toBe(true);
    expect(isReplyAddress(c.address, 'replies.test')).toBe(true);
    expect(isReplyAddress('revoke+short@replies.test', 'replies.test')).toBe(false);
    const reply = { to: ['someone@else.test', c.address.replace('@replies.test', '@REPLIES.TEST')], from: 'Ada@Reply.test', inReplyTo: undefined, references: [] };
    expect(await revokeByReply(t.pool, reply, { domain: 'replies.test', clock })).toMatchObject({ outcome: 'revoked', grantId: c.grantId, userEmail: 'ada@reply.test' });
    expect((await check(c.token)).ok).toBe(false);
    expect(await refreshTokenGrant(t.pool, c.refreshToken)).toBeUndefined(); // the refresh token is gone: refreshing fails
    expect((await t.pool.query('SELECT revoked_at FROM oauth_grants WHERE grant_id = $1', [c.grantId])).rows[0].revoked_at).toBeInstanceOf(Date);
    expect(await revokeByReply(t.pool, reply, { domain: 'replies.test', clock })).toEqual({ outcome: 'already_used' });
  });

  it('accepts a reply from another address only when it answers the very message', async () => {
    const c = await connection('bo@reply.test');
    const forged = { to: [c.address], from: 'bo@reply.test.evil', inReplyTo: undefined, references: [] };
    expect(await revokeByReply(t.pool, forged, { domain: 'replies.test', clock })).toEqual({ outcome: 'sender_mismatch' });
    const forwarded = { to: [c.address], from: 'assistant@reply.test', inReplyTo: undefined, references: ['<other@x>', c.messageId] };
    expect(await revokeByReply(t.pool, forwarded, { domain: 'replies.test', clock })).toMatchObject({ outcome: 'revoked', grantId: c.grantId });
  });

  it('refuses addresses it did not hand out, and touches only the grant of the token', async () => {
    const a = await connection('cy@reply.test');
    const b = await connection('dee@reply.test');
    const guess = `revoke+${randomBytes(32).toString('base64url')}@replies.test`;
    expect(await revokeByReply(t.pool, { to: [guess], from: 'cy@reply.test', inReplyTo: a.messageId, references: [] }, { domain: 'replies.test', clock })).toEqual({ outcome: 'unknown_address' });
    expect(await revokeByReply(t.pool, { to: ['support@replies.test'], from: 'cy@reply.test', inReplyTo: undefined, references: [] }, { domain: 'replies.test', clock })).toEqual({ outcome: 'not_a_reply_address' });
    expect(await revokeByReply(t.pool, { to: [a.address.replace('replies.test', 'other.test')], from: 'cy@reply.test', inReplyTo: undefined, references: [] }, { domain: 'replies.test', clock })).toEqual({ outcome: 'not_a_reply_address' });
    // b's person answers with a's token from their own address: neither From nor the message matches a's.
    expect(await revokeByReply(t.pool, { to: [a.address], from: 'dee@reply.test', inReplyTo: b.messageId, references: [] }, { domain: 'replies.test', clock })).toEqual({ outcome: 'sender_mismatch' });
    const { rows } = await t.pool.query<{ grant_id: string; revoked_at: Date | null }>('SELECT grant_id, revoked_at FROM oauth_grants WHERE grant_id = ANY($1)', [[a.grantId, b.grantId]]);
    expect(rows.every((r) => r.revoked_at === null)).toBe(true);
    expect((await t.pool.query('SELECT token_hash FROM grant_reply_addresses')).rows.map((r) => r.token_hash)).not.toContain(a.address);
  });

  it('revokes only the grant of the token when the same person has connections in two workspaces', async () => {
    const a = await connection('eve@reply.test');
    const b = await connection('eve@reply.test', a.user);
    const check = createAccessTokenVerifier({ pool: t.pool, clock, servicePrefix: 'loupe_' });
    // Eve answers b's mail from her own address, but the address she writes to is a's.
    const reply = { to: [a.address], from: 'eve@reply.test', inReplyTo: b.messageId, references: [] };
    expect(await revokeByReply(t.pool, reply, { domain: 'replies.test', clock })).toMatchObject({ outcome: 'revoked', grantId: a.grantId, workspaceId: a.ws });
    expect((await check(a.token)).ok).toBe(false);
    expect(await refreshTokenGrant(t.pool, a.refreshToken)).toBeUndefined();
    expect((await check(b.token)).ok).toBe(true);
    expect(await refreshTokenGrant(t.pool, b.refreshToken)).toBe(b.grantId);
    expect((await t.pool.query('SELECT used_at FROM grant_reply_addresses WHERE grant_id = $1', [b.grantId])).rows[0].used_at).toBeNull();
  });

  it('treats an address whose grant no longer belongs to its workspace and person as unknown', async () => {
    const c = await connection('fay@reply.test');
    const other = await connection('gus@reply.test');
    await t.pool.query('UPDATE oauth_grants SET workspace_id = $2 WHERE grant_id = $1', [c.grantId, other.ws]);
    expect(await revokeByReply(t.pool, { to: [c.address], from: 'fay@reply.test', inReplyTo: c.messageId, references: [] }, { domain: 'replies.test', clock })).toEqual({ outcome: 'unknown_address' });
    expect((await t.pool.query('SELECT revoked_at FROM oauth_grants WHERE grant_id = $1', [c.grantId])).rows[0].revoked_at).toBeNull();
  });
});
