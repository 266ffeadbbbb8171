export { ERASED, Matcher, normaliseSubject, subjectHash, type Subject, type SubjectKind } from './match';
export {
  ERASURE_STATUSES, ErasureInputError, getErasure, listErasures, parseErasureInput, requestErasure,
  type ErasureCounts, type ErasureStatus, type ErasureView, type Requester,
} from './requests';
export { attachmentWasErased, ERASED_ATTACHMENT, ERASURE_SLICE, failErasure, PHASES, runErasure, type ErasureDeps, type Phase } from './run';
export {
  addSuppression, findSuppressed, getSuppression, liftSuppression, listSuppressions, SUPPRESSED_CODE, suppressedMessage, suppressionHash,
  type Candidate, type SuppressedHit, type SuppressionView,
} from './suppressions';
