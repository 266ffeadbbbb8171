import type pg from 'pg';
import { newId } from '@loupe/db';
import type { Clock } from '@loupe/http';
import { normaliseEmail } from './sign-in-codes';

export interface IdentitySignIn {
  /** Our id of the identity provider (from OIDC_PROVIDERS). */
  provider: string;
  /** The provider's `sub` claim: stable per person at that provider. */
  subject: string;
  email?: string | null;
  /** The provider's `email_verified` claim. */
  emailVerified?: boolean;
}

export type IdentitySignInResult =
  | { ok: true; user: { id: string; email: string }; linked: 'existing_link' | 'linked_by_email' | 'new_user' }
  | { ok: false; reason: 'email_not_verified' | 'no_email' };

/**
 * Sign-in through an OpenID Connect identity provider (spec 5.2 rule 1). A (provider, subject) pair
 * already linked signs in as its user. Otherwise, and only when the provider says the email is
 * verified, it is linked to the user with that email, or to a new user: an unverified email never
 * links to an existing account (whoever controls the provider account could claim any address).
 */
export function createIdentityLinks({ pool, clock }: { pool: pg.Pool; clock: Clock }) {
  async function signInWithIdentity(input: IdentitySignIn): Promise<IdentitySignInResult> {
    const provider = String(input.provider ?? '');
    const subject = String(input.subject ?? '');
    if (!provider || !subject) throw new TypeError('signInWithIdentity needs a provider and a subject');
    const now = new Date(clock.now());
    const email = normaliseEmail(input.email);

    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows: links } = await client.query<{ id: string; email: string }>(
        `UPDATE identity_links l SET last_used_at = $3, email = COALESCE($4, l.email)
           FROM users u WHERE u.id = l.user_id AND l.provider = $1 AND l.subject = $2
         RETURNING u.id, u.email`,
        [provider, subject, now, email ?? null],
      );
      if (links[0]) {
        await client.query('COMMIT');
        return { ok: true, user: { id: links[0].id, email: links[0].email }, linked: 'existing_link' };
      }
      if (!email) {
        await client.query('ROLLBACK');
        return { ok: false, reason: 'no_email' };
      }
      if (input.emailVerified !== true) {
        await client.query('ROLLBACK');
        return { ok: false, reason: 'email_not_verified' };
      }
      const { rows: users } = await client.query<{ id: string; email: string; created: boolean }>(
        `INSERT INTO users (id, email, email_verified, created_at) VALUES ($1, $2, true, $3)
         ON CONFLICT (email) DO UPDATE SET email_verified = true
         RETURNING id, email, (xmax = 0) AS created`,
        [newId('usr', now.getTime()), email, now],
      );
      const user = users[0]!;
      const { rowCount } = await client.query(
        `INSERT INTO identity_links (provider, subject, user_id, email, created_at, last_used_at) VALUES ($1, $2, $3, $4, $5, $5)
         ON CONFLICT (provider, subject) DO NOTHING`,
        [provider, subject, user.id, email, now],
      );
      if (rowCount === 0) {
        // A concurrent sign-in of the same identity linked it first: use that link.
        await client.query('ROLLBACK');
        return signInWithIdentity(input);
      }
      await client.query('COMMIT');
      return { ok: true, user: { id: user.id, email: user.email }, linked: user.created ? 'new_user' : 'linked_by_email' };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  return { signInWithIdentity };
}
