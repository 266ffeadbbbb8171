import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Clock } from '@loupe/http';
import { revokeGrant } from './grants';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const TOKEN = /^revoke\+([A-Za-z0-9_-]{43})@(.+)$/i;

/** What an inbound mail says of itself; addresses in lower case, message ids with their angle brackets. */
export interface InboundReply {
  /** Every recipient: the To and Cc headers, and the SMTP envelope's recipients when known. */
  to: string[];
  from: string | undefined;
  inReplyTo: string | undefined;
  references: string[];
}

export type ReplyOutcome =
  | { outcome: 'revoked'; grantId: string; workspaceId: string; userId: string; userEmail: string }
  | { outcome: 'already_used' | 'not_a_reply_address' | 'unknown_address' | 'sender_mismatch' };

/** True when `address` has the shape of a reply address of `domain` (for the SMTP receiver's RCPT check). */
export function isReplyAddress(address: string, domain: string): boolean {
  const m = TOKEN.exec(address.trim());
  return !!m && m[2]!.toLowerCase() === domain.toLowerCase();
}

/**
 * A new unguessable reply address for a grant's confirmation mail (`revoke+<256 bits>@domain`); only
 * the token's SHA-256 is stored, with the Message-ID the mail will carry.
 */
export async function createReplyAddress(
  pool: pg.Pool,
  grant: { grantId: string; workspaceId: string; userId: string; messageId: string; domain: string },
  clock: Clock,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await pool.query(
    `INSERT INTO grant_reply_addresses (token_hash, grant_id, workspace_id, user_id, message_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [sha256(token), grant.grantId, grant.workspaceId, grant.userId, grant.messageId, new Date(clock.now())],
  );
  return `revoke+${token}@${grant.domain}`;
}

/**
 * Spec 5.7 rule 4: a reply to a connection's confirmation mail revokes that connection. The token
 * in the recipient address is the capability; the reply must also be plausibly the person's: sent
 * from their address, or answering the very message (In-Reply-To or References holds its
 * Message-ID). A From header alone never revokes anything, and an address works once.
 */
export async function revokeByReply(pool: pg.Pool, mail: InboundReply, options: { domain: string; clock: Clock }): Promise<ReplyOutcome> {
  const token = mail.to.map((a) => TOKEN.exec(a.trim())).find((m) => m && m[2]!.toLowerCase() === options.domain.toLowerCase())?.[1];
  if (!token) return { outcome: 'not_a_reply_address' };
  // Every later query uses the ids of this row, and its grant must still be of that workspace and person.
  const { rows } = await pool.query<{ grant_id: string; workspace_id: string; user_id: string; message_id: string; used_at: Date | null; email: string | null; grant_matches: boolean }>(
    `SELECT r.grant_id, r.workspace_id, r.user_id, r.message_id, r.used_at, u.email,
            EXISTS (SELECT 1 FROM oauth_grants g WHERE g.grant_id = r.grant_id AND g.workspace_id = r.workspace_id AND g.user_id = r.user_id) AS grant_matches
       FROM grant_reply_addresses r LEFT JOIN users u ON u.id = r.user_id WHERE r.token_hash = $1`,
    [sha256(token)],
  );
  const row = rows[0];
  // No such address, or its connection is gone with its person (grants are never deleted on revocation).
  if (!row || !row.grant_matches) return { outcome: 'unknown_address' };
  if (row.used_at) return { outcome: 'already_used' };
  const fromUser = !!row.email && mail.from?.trim().toLowerCase() === row.email.toLowerCase();
  const answersIt = [mail.inReplyTo, ...mail.references].some((id) => id?.trim() === row.message_id);
  if (!fromUser && !answersIt) return { outcome: 'sender_mismatch' };
  // Revoke first, then spend the address: revoking is idempotent, so a failure in between leaves an
  // address that still works when the mail is delivered again (the SMTP receiver answers 451), and
  // of two replies arriving together only one is answered as revoked.
  await revokeGrant(pool, row.grant_id, options.clock);
  const { rowCount } = await pool.query(
    'UPDATE grant_reply_addresses SET used_at = $4 WHERE token_hash = $1 AND grant_id = $2 AND workspace_id = $3 AND used_at IS NULL',
    [sha256(token), row.grant_id, row.workspace_id, new Date(options.clock.now())],
  );
  if (!rowCount) return { outcome: 'already_used' };
  return { outcome: 'revoked', grantId: row.grant_id, workspaceId: row.workspace_id, userId: row.user_id, userEmail: row.email ?? '' };
}
