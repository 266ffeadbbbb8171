export { EvidenceError, SignalNotFoundError, SourceNotFoundError, UnknownSignalTypeError } from './errors';
export { BUILT_IN_SIGNAL_TYPES, createSignalType, ensureSignalTypes, listSignalTypes, setSignalTypeActive, type SignalType } from './signal-types';
export { addSignals, getSignal, updateSignalsWith, type SignalChangeFields, listSignalsOfProduct, listSignalsOfSource, updateSignals, type NewSignal, type SignalUpdate, type SignalView, type UpdateResult as SignalUpdateResult } from './signals';
export { companyOf, FREE_MAIL } from './companies';
export { resolveSignalCompanies, resolveWorkspaceCompanies, RESOLVE_SLICE, type ResolutionResult } from './company-resolution';
export { refreshImpact, type Impact, type ImpactSplit } from './impact';
export {
  DRIFT_SHARE, getOpportunity, SETTLE_MAX, listOpportunities, OPPORTUNITY_SORTS, type OpportunityFilter, type OpportunitySort, lockProduct, OPPORTUNITY_THRESHOLD, OPPORTUNITY_NEIGHBOURS, OPPORTUNITY_STABLE_FLOOR, signalText, CLUSTERING_METHOD, SMALL_PRODUCT, subtitleOf, updateOpportunities,
  type OpportunityDeps, type OpportunityRow, type UpdateOptions, type UpdateResult,
} from './opportunities';
export { deleteSignals, editSignal, listSignalChanges, moveSignals, OpportunityNotFoundError, removeSignalsOfSources, SIGNAL_ACTIONS, type Reviewer, type SignalAction, type SignalChangeView } from './review';
export { decodeCursor, encodeCursor, listRecentSignals, opportunityGrowth, VERIFIED_FILTERS, type SignalCursor, type SignalFilter, type SignalListItem, type VerifiedFilter } from './signal-list';
export { findCompanies, getCompanyEvidence, type CompanyEvidence, type CompanyRef } from './company-view';
export {
  checkQuotes, findQuote, isSpeaker, quotesIn, quotesOf, quotesVerified, QUOTES_VERIFIED, sourceWords, wordsOf,
  type QuoteCheck, type QuoteSegment, type QuotesVerified, type SourceWords,
} from './quotes';
export { readSourceWords, type SignalQuotes, type StoredQuote } from './signal-quotes';
export { NO_QUOTE_SHARE, opportunityQuoteShares, type QuoteShare } from './quote-shares';
