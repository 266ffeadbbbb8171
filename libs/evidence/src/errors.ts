/** A problem the caller can fix; `message` is written to be shown to an AI assistant as it is. */
export class EvidenceError extends Error {
  override name = 'EvidenceError';
}
export class UnknownSignalTypeError extends EvidenceError {
  override name = 'UnknownSignalTypeError';
}
export class SourceNotFoundError extends EvidenceError {
  override name = 'SourceNotFoundError';
}
export class SignalNotFoundError extends EvidenceError {
  override name = 'SignalNotFoundError';
}
