export { checkQuotes, isSpeaker, quotesOf, quotesVerified, QUOTES_VERIFIED, type QuoteCheck, type QuotesVerified } from './check';
export { givenQuote, MIN_QUOTED_WORDS, quotesIn } from './extract';
export { findQuote, PART_WINDOW, sourceWords, type QuoteMatch, type QuoteSegment, type SourceWords } from './match';
export { FILLER_PAIRS, FILLERS, wordsOf } from './words';
