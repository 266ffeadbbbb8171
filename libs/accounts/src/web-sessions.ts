import { createHash } from 'node:crypto';
import connectPgSimple from 'connect-pg-simple';
import session from 'express-session';
import type pg from 'pg';

declare module 'express-session' {
  interface SessionData {
    /** The signed-in person; nothing else is kept in a session. */
    userId?: string;
  }
}

export const WEB_SESSION_TTL_MS = 14 * 24 * 3600_000;

const PgStore = connectPgSimple(session);
type Callback = (err?: unknown, value?: session.SessionData | null) => void;

/** The key a session is stored under: a copy of the table signs no one in. */
export const sessionKey = (sid: string) => createHash('sha256').update(sid).digest('hex');

/**
 * express-session's store: connect-pg-simple on `web_sessions`, every session id replaced by its
 * SHA-256 before it reaches the table. The expiry is fixed at sign-in (no touch), like the cookie's;
 * expired rows are pruned by the store every 15 minutes.
 */
export class HashedSessionStore extends PgStore {
  constructor(pool: pg.Pool, onError: (message: string, error: unknown) => void) {
    super({
      pool,
      tableName: 'web_sessions',
      createTableIfMissing: false,
      disableTouch: true,
      pruneSessionInterval: 15 * 60,
      errorLog: (message: unknown, error: unknown) => onError(String(message), error),
    });
  }

  override get(sid: string, callback: Callback) {
    super.get(sessionKey(sid), callback);
  }

  override set(sid: string, data: session.SessionData, callback?: (err?: unknown) => void) {
    super.set(sessionKey(sid), data, callback);
  }

  override destroy(sid: string, callback?: (err?: unknown) => void) {
    super.destroy(sessionKey(sid), callback);
  }

  override touch(sid: string, data: session.SessionData, callback?: () => void) {
    super.touch(sessionKey(sid), data, callback);
  }
}

/** Who a session's user id names, if they still exist. */
export function createWebSessions({ pool }: { pool: pg.Pool }) {
  return {
    async sessionUser(userId: unknown): Promise<{ id: string; email: string } | undefined> {
      if (typeof userId !== 'string' || userId.length > 128) return undefined;
      const { rows } = await pool.query<{ id: string; email: string }>('SELECT id, email FROM users WHERE id = $1', [userId]);
      return rows[0];
    },
  };
}
