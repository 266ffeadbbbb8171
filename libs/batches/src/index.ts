export * from './lifecycle';
export { landBatch, landBatchIn, lockLandings, withLanding, type LandingInput, type Landed } from './land';
export { getBatch, listBatches, toBatchView, encodeCursor, decodeCursor, CursorError } from './views';
