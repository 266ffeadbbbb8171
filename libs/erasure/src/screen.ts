import { lockLandings, type ScreenRecords } from '@loupe/batches';
import type pg from 'pg';
import { findSuppressed, SUPPRESSED_CODE, suppressedMessage } from './suppressions';

/**
 * A person erased from the workspace stays out until their suppression is lifted: the records naming them are
 * refused. Run by acceptRecords in the landing's own transaction, under its lock: a suppression made before is
 * seen, and one made meanwhile waits for this landing to commit (its erasure then finds these records).
 */
export const screenSuppressed: ScreenRecords = async (client, workspaceId, accepted) => {
  const hits = await findSuppressed(client, workspaceId, accepted.map((a) => ({ participants: a.record._participants, data: a.record.data })));
  return new Map([...hits].map(([i, hit]) => [i, { code: SUPPRESSED_CODE, message: suppressedMessage(hit) }]));
};

/**
 * A person erased from the workspace stays out of its people until their suppression is lifted, as their
 * records do: the email and the external_id (as a participant id) are checked against the active
 * suppressions, under the landing lock, so a suppression made meanwhile waits for this write (and the
 * erasure that follows finds what it wrote). libs/companies' `screenPeople`.
 */
export async function screenErasedPeople(
  client: pg.PoolClient, workspaceId: string, inputs: readonly { external_id: string; email?: string | null | undefined }[],
): Promise<Map<number, { code: string; message: string }>> {
  await lockLandings(client, workspaceId, 'shared');
  const hits = await findSuppressed(client, workspaceId, inputs.map((p) => ({
    ids: [{ field: 'external_id', value: p.external_id }],
    texts: [{ field: 'email', value: p.email ?? null }],
  })));
  return new Map([...hits].map(([i, hit]) => [i, { code: SUPPRESSED_CODE, message: suppressedMessage(hit).replace('records about them are refused', 'they are refused') }]));
}
