import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type session from 'express-session';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedSessionStore, sessionKey, WEB_SESSION_TTL_MS } from './index';
import { DAY, harness } from './test/harness';

describe('web sessions (express-session over connect-pg-simple, keyed by hash)', () => {
  let t: TestDatabase;
  let store: HashedSessionStore;
  const errors: string[] = [];
  let n = 0;
  beforeAll(async () => {
    t = await createTestDatabase();
    store = new HashedSessionStore(t.pool, (message) => errors.push(message));
  });
  afterAll(async () => {
    store.close();
    await t.close();
  });

  const get = (sid: string) => promisify<string, session.SessionData | null | undefined>((s, cb) => store.get(s, cb))(sid);
  const set = (sid: string, data: session.SessionData) => promisify<void>((cb) => store.set(sid, data, cb))();
  const destroy = (sid: string) => promisify<void>((cb) => store.destroy(sid, cb))();
  const newSid = () => randomBytes(32).toString('base64url');
  const sessionFor = (userId: string, expires = new Date(Date.now() + WEB_SESSION_TTL_MS)) =>
    ({ cookie: { originalMaxAge: WEB_SESSION_TTL_MS, expires, httpOnly: true, path: '/' }, userId }) as unknown as session.SessionData;

  async function user() {
    const h = harness(t);
    const email = `web${++n}@example.com`;
    await h.accounts.requestSignInCode({ email, ip: `10.8.0.${n}` });
    const result = await h.accounts.verifySignInCode({ email, code: h.lastCode(email) });
    if (!result.ok) throw new Error(result.reason);
    return { h, user: result.user };
  }

  it('stores a session under the SHA-256 of its id, finds it by the id, and its user by the session', async () => {
    const { h, user: person } = await user();
    const sid = newSid();
    await set(sid, sessionFor(person.id));
    expect((await get(sid))?.userId).toBe(person.id);
    expect(await h.accounts.sessionUser(person.id)).toEqual(person);
    const { rows } = await t.pool.query<{ sid: string; user_id: string; expire: Date; dump: string }>(
      'SELECT sid, user_id, expire, row_to_json(s)::text AS dump FROM web_sessions s WHERE user_id = $1', [person.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sid).toBe(sessionKey(sid));
    expect(rows[0]!.dump).not.toContain(sid);
    expect(Math.abs(rows[0]!.expire.getTime() - (Date.now() + 14 * DAY))).toBeLessThan(60_000);
    expect(WEB_SESSION_TTL_MS).toBe(14 * DAY);
  });

  it('finds nothing for an unknown, altered, expired or destroyed id; destroying one leaves the others', async () => {
    const { user: person } = await user();
    const a = newSid();
    const b = newSid();
    await set(a, sessionFor(person.id));
    await set(b, sessionFor(person.id));
    expect(await get(newSid())).toBeFalsy();
    expect(await get(`${a.slice(0, -1)}${a.endsWith('A') ? 'B' : 'A'}`)).toBeFalsy();
    expect(await get(sessionKey(a))).toBeFalsy(); // the stored key is not an id
    await destroy(a);
    await destroy(a); // twice is harmless
    expect(await get(a)).toBeFalsy();
    expect((await get(b))?.userId).toBe(person.id);
    await t.pool.query(`UPDATE web_sessions SET expire = now() - interval '1 second' WHERE sid = $1`, [sessionKey(b)]);
    expect(await get(b)).toBeFalsy();
    expect(errors).toEqual([]);
  });

  it('a deleted person loses every session with them', async () => {
    const { h, user: person } = await user();
    const sid = newSid();
    await set(sid, sessionFor(person.id));
    await t.pool.query('DELETE FROM users WHERE id = $1', [person.id]);
    expect(await get(sid)).toBeFalsy();
    expect(await h.accounts.sessionUser(person.id)).toBeUndefined();
    expect((await t.pool.query('SELECT 1 FROM web_sessions WHERE sid = $1', [sessionKey(sid)])).rowCount).toBe(0);
  });

  it('sessionUser refuses what is not a user id', async () => {
    const { h } = await user();
    expect(await h.accounts.sessionUser(undefined)).toBeUndefined();
    expect(await h.accounts.sessionUser(42)).toBeUndefined();
    expect(await h.accounts.sessionUser('x'.repeat(10_000))).toBeUndefined();
  });
});
