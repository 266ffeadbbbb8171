export { EvidenceError, SignalNotFoundError, SourceNotFoundError, UnknownSignalTypeError } from './errors';
export { BUILT_IN_SIGNAL_TYPES, createSignalType, ensureSignalTypes, listSignalTypes, setSignalTypeActive, type SignalType } from './signal-types';
export { addSignals, getSignal, listSignalsOfProduct, listSignalsOfSource, updateSignals, type NewSignal, type SignalUpdate, type SignalView } from './signals';
export { companyOf } from './companies';
export {
  DRIFT_SHARE, getOpportunity, SETTLE_MAX, listOpportunities, OPPORTUNITY_THRESHOLD, SMALL_PRODUCT, subtitleOf, updateOpportunities,
  type OpportunityDeps, type OpportunityRow, type UpdateOptions, type UpdateResult,
} from './opportunities';
