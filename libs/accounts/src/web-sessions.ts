import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Clock } from '@loupe/http';

export const WEB_SESSION_TTL_MS = 14 * 24 * 3600_000;

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/** Browser sessions of the web pages: the cookie holds 256 random bits, the table only their SHA-256. */
export function createWebSessions({ pool, clock }: { pool: pg.Pool; clock: Clock }) {
  return {
    async createWebSession(userId: string): Promise<{ token: string; expiresAt: number }> {
      const token = randomBytes(32).toString('base64url');
      const now = clock.now();
      const expiresAt = now + WEB_SESSION_TTL_MS;
      await pool.query(
        'INSERT INTO web_sessions (id_hash, user_id, created_at, expires_at, last_seen_at) VALUES ($1, $2, $3, $4, $3)',
        [hash(token), userId, new Date(now), new Date(expiresAt)],
      );
      return { token, expiresAt };
    },

    async findWebSession(token: string): Promise<{ user: { id: string; email: string }; expiresAt: number } | undefined> {
      if (!token || token.length > 128) return undefined;
      const { rows } = await pool.query<{ id: string; email: string; expires_at: Date; last_seen_at: Date }>(
        `SELECT u.id, u.email, s.expires_at, s.last_seen_at FROM web_sessions s JOIN users u ON u.id = s.user_id WHERE s.id_hash = $1`,
        [hash(token)],
      );
      const row = rows[0];
      const now = clock.now();
      if (!row || row.expires_at.getTime() <= now) return undefined;
      if (now - row.last_seen_at.getTime() > 60_000) {
        await pool.query('UPDATE web_sessions SET last_seen_at = $2 WHERE id_hash = $1', [hash(token), new Date(now)]);
      }
      return { user: { id: row.id, email: row.email }, expiresAt: row.expires_at.getTime() };
    },

    async endWebSession(token: string): Promise<void> {
      await pool.query('DELETE FROM web_sessions WHERE id_hash = $1', [hash(token)]);
    },
  };
}
