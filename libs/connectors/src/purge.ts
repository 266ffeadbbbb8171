import { deleteEvidence, MAX_DELETE_IDS, type LifecycleDeps } from '@loupe/lifecycle';
import { connectionRecordIds } from './store';

/**
 * One slice of deleting what a deleted connection brought in: its records, each with its source, signals and
 * files, through the data-lifecycle deletion (libs/lifecycle) as DELETE /api/v1/records does. `more` while
 * some remain: the caller queues the next slice, so other work runs between slices.
 */
export async function purgeConnectionSlice(deps: LifecycleDeps, workspaceId: string, connectionId: string, slice = MAX_DELETE_IDS): Promise<{ deleted: number; more: boolean }> {
  const ids = await connectionRecordIds(deps.pool, workspaceId, connectionId, slice);
  if (!ids.length) return { deleted: 0, more: false };
  const result = await deleteEvidence(deps, workspaceId, { recordIds: ids });
  return { deleted: result.records.length, more: ids.length === slice };
}
