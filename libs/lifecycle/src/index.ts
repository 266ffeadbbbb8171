export { attachmentWasDeleted, deleteEvidence, deleteFiles, MAX_DELETE_IDS, sweepStorageDeletions, type DeletionRequest, type DeletionResult, type LifecycleDeps } from './delete';
export {
  applyRetentionSlice, getRetention, pruneSourceDeletions, RETENTION_MAX_DAYS, RETENTION_SLICE, RetentionError, setRetention, SOURCE_DELETIONS_KEPT_MS,
  workspacesWithRetention, type RetentionSlice,
} from './retention';
