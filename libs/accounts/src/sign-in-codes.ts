import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { z } from 'zod';
import { newId } from '@loupe/db';
import type { Clock, RateLimiter } from '@loupe/http';

export const SIGN_IN_CODE_TTL_MS = 10 * 60_000;
export const SIGN_IN_CODE_MAX_ATTEMPTS = 5;

export interface Mailer {
  send(message: { to: string; subject: string; text: string; html?: string; kind: string; localOnly?: Record<string, string> }): Promise<void>;
}

export type RequestCodeResult =
  | { ok: true; expiresInSeconds: number }
  | { ok: false; reason: 'invalid_email' | 'rate_limited'; retryAfterSeconds?: number };

export type VerifyCodeResult =
  | { ok: true; user: { id: string; email: string }; created: boolean }
  | { ok: false; reason: 'invalid_code' | 'expired' | 'too_many_attempts' };

const emailSchema = z.email();

/** Trimmed and lower-cased, or undefined when it is not an email address. */
export function normaliseEmail(input: unknown): string | undefined {
  if (typeof input !== 'string' || input.length > 254) return undefined;
  const email = input.trim().toLowerCase();
  return emailSchema.safeParse(email).success ? email : undefined;
}

interface Deps {
  pool: pg.Pool;
  clock: Clock;
  mailer: Mailer;
  codeSecret: string;
  perEmail: RateLimiter;
  perIp: RateLimiter;
}

/**
 * Email sign-in (spec 5.2): a 6-digit code, mailed, valid 10 minutes, single use, dead after 5 wrong
 * guesses. Only an HMAC of the code (keyed by a server secret and bound to its row) is stored, so a
 * database dump does not give the code away even though 6 digits are easy to enumerate.
 */
export function createSignInCodes(deps: Deps) {
  const { pool, clock } = deps;
  if (!deps.codeSecret) throw new TypeError('createAccounts needs a codeSecret (the HMAC key of stored sign-in codes)');
  const digest = (id: string, code: string) => createHmac('sha256', deps.codeSecret).update(`${id}:${code}`).digest('hex');

  async function requestSignInCode(input: { email: string; ip: string }): Promise<RequestCodeResult> {
    const email = normaliseEmail(input.email);
    if (!email) return { ok: false, reason: 'invalid_email' };
    for (const decision of [await deps.perEmail.take(`signin-email:${email}`), await deps.perIp.take(`signin-ip:${input.ip}`)]) {
      if (!decision.allowed) return { ok: false, reason: 'rate_limited', retryAfterSeconds: decision.retryAfterSeconds };
    }
    const id = newId('sic');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = clock.now();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // One request per address at a time, so two concurrent requests cannot leave two live codes.
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended('sign_in_codes:' || $1, 0))", [email]);
      await client.query('UPDATE sign_in_codes SET consumed_at = $2 WHERE email = $1 AND consumed_at IS NULL', [email, new Date(now)]);
      await client.query(
        'INSERT INTO sign_in_codes (id, email, code_hash, ip, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [id, email, digest(id, code), input.ip || null, new Date(now), new Date(now + SIGN_IN_CODE_TTL_MS)],
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    await deps.mailer.send(signInCodeMail(email, code));
    return { ok: true, expiresInSeconds: SIGN_IN_CODE_TTL_MS / 1000 };
  }

  async function verifySignInCode(input: { email: string; code: string }): Promise<VerifyCodeResult> {
    const email = normaliseEmail(input.email);
    const code = String(input.code ?? '').replace(/[\s-]/g, '');
    if (!email) return { ok: false, reason: 'invalid_code' };
    const { rows } = await pool.query<{ id: string; code_hash: string; attempts: number; expires_at: Date }>(
      `SELECT id, code_hash, attempts, expires_at FROM sign_in_codes
        WHERE email = $1 AND consumed_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1`,
      [email],
    );
    const row = rows[0];
    if (!row) return { ok: false, reason: 'invalid_code' };
    const now = clock.now();
    if (row.expires_at.getTime() <= now) return { ok: false, reason: 'expired' };
    if (row.attempts >= SIGN_IN_CODE_MAX_ATTEMPTS) return { ok: false, reason: 'too_many_attempts' };
    const right = /^\d{6}$/.test(code) && timingSafeEqual(Buffer.from(digest(row.id, code)), Buffer.from(row.code_hash));
    if (!right) {
      // Counted with a conditional update, so concurrent guesses cannot exceed the limit.
      const { rows: counted } = await pool.query<{ attempts: number }>(
        `UPDATE sign_in_codes SET attempts = attempts + 1 WHERE id = $1 AND attempts < $2 AND consumed_at IS NULL RETURNING attempts`,
        [row.id, SIGN_IN_CODE_MAX_ATTEMPTS],
      );
      return { ok: false, reason: counted[0] && counted[0].attempts < SIGN_IN_CODE_MAX_ATTEMPTS ? 'invalid_code' : 'too_many_attempts' };
    }
    // Single use: of concurrent uses of the right code, exactly one consumes it.
    const { rowCount } = await pool.query(
      `UPDATE sign_in_codes SET consumed_at = $2 WHERE id = $1 AND consumed_at IS NULL AND attempts < $3`,
      [row.id, new Date(now), SIGN_IN_CODE_MAX_ATTEMPTS],
    );
    if (rowCount === 0) {
      // Lost a race: used by someone else, or killed by concurrent wrong guesses.
      const { rows: after } = await pool.query<{ attempts: number }>('SELECT attempts FROM sign_in_codes WHERE id = $1', [row.id]);
      return { ok: false, reason: (after[0]?.attempts ?? 0) >= SIGN_IN_CODE_MAX_ATTEMPTS ? 'too_many_attempts' : 'invalid_code' };
    }
    const { rows: users } = await pool.query<{ id: string; email: string; created: boolean }>(
      `INSERT INTO users (id, email, email_verified, created_at) VALUES ($1, $2, true, $3)
       ON CONFLICT (email) DO UPDATE SET email_verified = true
       RETURNING id, email, (xmax = 0) AS created`,
      [newId('usr', now), email, new Date(now)],
    );
    const user = users[0]!;
    return { ok: true, user: { id: user.id, email: user.email }, created: user.created };
  }

  return { requestSignInCode, verifySignInCode };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The mail that carries a code. The code is in the body only: subjects end up in logs, notifications
 * and mail-server records. `localOnly` lets the local outbox (no SMTP_URL) log it for local sign-in.
 */
export function signInCodeMail(email: string, code: string) {
  const spaced = `${code.slice(0, 3)} ${code.slice(3)}`;
  return {
    to: email,
    kind: 'sign-in-code',
    subject: 'Your Loupe sign-in code',
    localOnly: { signInCode: spaced },
    text: [
      `Your Loupe sign-in code is ${spaced}.`,
      '',
      'Enter it on the sign-in page. It expires in 10 minutes and works once.',
      'If you did not try to sign in to Loupe, ignore this email: nobody can sign in without the code.',
    ].join('\n'),
    html: `<div style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.5;color:#18181b;max-width:520px">
<p>Your Loupe sign-in code is</p>
<p style="font-size:28px;font-weight:700;letter-spacing:4px;margin:8px 0 16px">${escapeHtml(spaced)}</p>
<p>Enter it on the sign-in page. It expires in 10 minutes and works once.</p>
<p style="color:#71717a;font-size:13px">If you did not try to sign in to Loupe as ${escapeHtml(email)}, ignore this email: nobody can sign in without the code.</p></div>`,
  };
}
