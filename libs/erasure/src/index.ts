export {
  ERASED, foldIdentifier, foldName, idInFreeText, localNames, Matcher, MIN_FREE_TEXT_ID_LENGTH, MIN_NAME_LENGTH, MIN_PARTICIPANT_ID_LENGTH, normaliseSubject,
  subjectHash, type Subject, type SubjectKind,
} from './match';
export {
  confirmErasure, ERASURE_STATUSES, ErasureInputError, ErasureStateError, getErasure, listErasures, parseConfirmInput, parseErasureInput, requestErasure,
  type ErasureCounts, type ErasurePreview, type ErasureStatus, type ErasureView, type Requester,
} from './requests';
export { attachmentWasErased, ERASED_ATTACHMENT, ERASURE_SLICE, failErasure, PHASES, runErasure, type ErasureDeps, type Phase } from './run';
export { PREVIEW_TTL_MS, type FoundIdentifier, type OfferedName, type Sample, type SampleKind } from './subject';
export {
  addSuppression, findSuppressed, getSuppression, liftSuppression, listSuppressions, SUPPRESSED_CODE, suppressedMessage,
  type Candidate, type SuppressedHit, type SuppressionView,
} from './suppressions';
export { screenErasedPeople, screenSuppressed } from './screen';
