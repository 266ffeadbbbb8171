export { EvidenceError, SignalNotFoundError, SourceNotFoundError, UnknownSignalTypeError } from './errors';
export { BUILT_IN_SIGNAL_TYPES, createSignalType, ensureSignalTypes, listSignalTypes, setSignalTypeActive, type SignalType } from './signal-types';
export { addSignals, getSignal, listSignalsOfProduct, listSignalsOfSource, updateSignals, type NewSignal, type SignalUpdate, type SignalView } from './signals';
export { similarity, terms, SIMILARITY_THRESHOLD } from './similarity';
export { clusterSignals, getOpportunity, listOpportunities, recomputeOpportunities, type Cluster, type ClusterOptions, type OpportunityRow, type SimilarityFn } from './opportunities';
