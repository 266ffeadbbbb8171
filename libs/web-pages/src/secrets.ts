import type pg from 'pg';
import { randomSecret, sharedSecret } from '@loupe/oauth/grants';

/** The secrets of the web pages, shared by every app and instance on the database: the same cookies work everywhere. */
export async function loadWebSecrets(pool: pg.Pool): Promise<{ csrfSecret: string; sessionSecret: string; signInCodeSecret: string }> {
  const [csrfSecret, sessionSecret, signInCodeSecret] = await Promise.all([
    sharedSecret(pool, 'web.csrf-secret', randomSecret),
    sharedSecret(pool, 'web.session-secret', randomSecret),
    sharedSecret(pool, 'accounts.sign-in-code-secret', randomSecret),
  ]);
  return { csrfSecret, sessionSecret, signInCodeSecret };
}
