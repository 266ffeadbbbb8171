export * from './lifecycle';
export { landBatch, landBatchIn, lockLandings, withLanding, type LandingInput, type Landed } from './land';
export { getBatch, listBatches, toBatchView, encodeCursor, decodeCursor, CursorError } from './views';
export { acceptRecords, MAX_REPORTED_ERRORS, type AcceptDeps, type AcceptInput, type Accepted, type Refused, type ScreenRecords } from './accept';
