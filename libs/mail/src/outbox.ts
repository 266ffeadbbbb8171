import type pg from 'pg';

/** A message of the local outbox, as `npm run admin -- mail list` shows it. */
export interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  kind: string;
  text: string;
  /** Its Reply-To (a revoke+<token> address), when it has one. */
  replyTo?: string;
  createdAt: Date;
}

export interface ListOutboxOptions {
  /** Only messages to this address. */
  to?: string | undefined;
  /** At most this many (default 20, at most 1000). */
  limit?: number | undefined;
}

export const DEFAULT_OUTBOX_LIMIT = 20;
const MAX_OUTBOX_LIMIT = 1000;

/** The local outbox, newest first. */
export async function listOutbox(pool: pg.Pool, options: ListOutboxOptions = {}): Promise<OutboxMessage[]> {
  const limit = options.limit ?? DEFAULT_OUTBOX_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_OUTBOX_LIMIT) {
    throw new RangeError(`limit must be a whole number from 1 to ${MAX_OUTBOX_LIMIT}, got ${limit}`);
  }
  const to = options.to?.trim();
  const { rows } = await pool.query<{ id: string; to_address: string; subject: string; kind: string; text_body: string; reply_to: string | null; created_at: Date }>(
    `SELECT id, to_address, subject, kind, text_body, reply_to, created_at FROM mail_outbox
     WHERE ($1::text IS NULL OR to_address = $1)
     ORDER BY created_at DESC, id DESC
     LIMIT $2`,
    [to || null, limit],
  );
  return rows.map((r) => ({ id: r.id, to: r.to_address, subject: r.subject, kind: r.kind, text: r.text_body, ...(r.reply_to ? { replyTo: r.reply_to } : {}), createdAt: r.created_at }));
}
