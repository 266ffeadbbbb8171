import { describe, expect, it } from 'vitest';
import { checkQuotes, findQuote, quotesIn, quotesOf, quotesVerified, sourceWords, wordsOf, type QuoteSegment } from './index';

const call: QuoteSegment[] = [
  { position: 0, speaker: 'Ana Ruiz <ana@acme.com>', text: 'Thanks for having me. So, um, the export is the thing that hurts most.' },
  { position: 1, speaker: 'Ana Ruiz <ana@acme.com>', text: 'We export 12 reports every Monday and it takes, you know, about forty minutes each time.' },
  { position: 2, speaker: 'Ben Cole', text: 'Do you use the CSV export or the PDF one?' },
  { position: 3, speaker: 'Ana Ruiz <ana@acme.com>', text: "CSV. I don't think the PDF one works for us at all." },
  { position: 4, speaker: 'Ana Ruiz <ana@acme.com>', text: 'Honestly the the filters are fine. It is only the speed.' },
  { position: 5, speaker: 'Ben Cole', text: 'Got it, speed of the CSV export.' },
];
const src = sourceWords(call);
const found = (quote: string) => findQuote(src, quote);

describe('wordsOf', () => {
  it('leaves out case, punctuation and typographic quotes, spells out contractions and writes small numbers as digits', () => {
    expect(wordsOf('“Don’t,” she said: TWO   things!')).toEqual(['do', 'not', 'she', 'said', '2', 'things']);
    expect(wordsOf('It costs $10,000 or 3.5%')).toEqual(['it', 'costs', '10000', 'or', '3.5']);
  });
});

describe('quotesIn', () => {
  it('finds “…”, «…», "…" and > lines, and leaves short terms in quotes alone', () => {
    const text = 'She said “the export is slow” and «nobody reads the PDF» and "it takes forever" about the "CSV export".\n> first line of a\n> block quote\nafter';
    expect(quotesIn(text)).toEqual(['the export is slow', 'nobody reads the PDF', 'it takes forever', 'first line of a block quote']);
  });
  it('reads a block quote without its speaker label, cited ids and trailing attribution, or as the spans it quotes', () => {
    expect(quotesIn('> **Ana:** the export is the thing that hurts most — Ana Ruiz, src_01abc')).toEqual(['the export is the thing that hurts most']);
    expect(quotesIn('> “It takes forty minutes.” (sig_01xyz)')).toEqual(['It takes forty minutes.']);
  });
  it('puts the separate exact words first and leaves out a repeat of them', () => {
    expect(quotesOf('She said "the export is slow".', '“The export is slow”')).toEqual(['The export is slow']);
    expect(quotesOf('No quotes here.')).toEqual([]);
  });
});

describe('findQuote', () => {
  it('finds a sentence with other case, spacing, punctuation and quotes, at its segment and speaker', () => {
    expect(found('THE EXPORT   is the thing that hurts most')).toEqual({ position: 0, speaker: 'Ana Ruiz <ana@acme.com>' });
    expect(found('i dont think the pdf one works for us')).toEqual({ position: 3, speaker: 'Ana Ruiz <ana@acme.com>' });
    expect(found('I do not think the PDF one works')).toMatchObject({ position: 3 });
  });
  it('lets a quote leave out fillers and repeated words the speaker said, but not add any', () => {
    expect(found('So, the export is the thing')).toMatchObject({ position: 0 });
    expect(found('it takes about forty minutes each time')).toMatchObject({ position: 1 });
    expect(found('Honestly the filters are fine')).toMatchObject({ position: 4 });
    expect(found('it takes, um, about forty minutes')).toBeUndefined();
    expect(found('the export is really the thing that hurts most')).toBeUndefined();
  });
  it('refuses a changed word, number, negation or name', () => {
    expect(found('the export is the thing that hurts least')).toBeUndefined();
    expect(found('We export 15 reports every Monday')).toBeUndefined();
    expect(found('it takes about 40 minutes each time')).toMatchObject({ position: 1 });
    expect(found('it takes about fifty minutes each time')).toBeUndefined();
    expect(found('I think the PDF one works for us')).toBeUndefined();
    expect(found('the filters are not fine')).toBeUndefined();
    expect(found('We export 12 reports every Friday')).toBeUndefined();
  });
  it('matches ellipsis parts in order within the next few segments of one speaker', () => {
    expect(found('the export is the thing … it takes about forty minutes')).toEqual({ position: 0, speaker: 'Ana Ruiz <ana@acme.com>' });
    expect(found('We export 12 reports... the filters are fine')).toMatchObject({ position: 1 });
    expect(found('the filters are fine … We export 12 reports')).toBeUndefined();
    expect(found('the thing that hurts most ... the PDF one works for us')).toMatchObject({ position: 0 });
    expect(found('the thing that hurts most ... It is only the speed')).toBeUndefined(); // 4 segments on
  });
  it('refuses words of two speakers run together, with or without an ellipsis', () => {
    expect(found('about forty minutes each time. Do you use the CSV export')).toBeUndefined();
    expect(found('forty minutes each time … speed of the CSV export')).toBeUndefined();
  });
  it('follows one speaker across consecutive segments (a long turn split in two)', () => {
    expect(found('the thing that hurts most. We export 12 reports')).toMatchObject({ position: 0 });
  });
});

describe('checkQuotes', () => {
  it('reports each quote with its segment and speaker, and a speaker other than the one named', () => {
    const checks = checkQuotes(src, { content: 'Slow: "the CSV export takes forever" and “speed of the CSV export”.', quote: 'It is only the speed', speakerAliases: ['ana@acme.com'] });
    expect(checks).toEqual([
      { text: 'It is only the speed', verified: true, position: 4, speaker: 'Ana Ruiz <ana@acme.com>' },
      { text: 'the CSV export takes forever', verified: false },
      { text: 'speed of the CSV export', verified: true, position: 5, speaker: 'Ben Cole', otherSpeaker: true },
    ]);
    expect(quotesVerified(checks)).toBe('some');
    expect(checkQuotes(src, { content: 'x', quote: 'It is only the speed', speakerAliases: ['Ana'] })[0]).not.toHaveProperty('otherSpeaker');
    expect(quotesVerified([])).toBe('no_quote');
    expect(quotesVerified([{ verified: false }])).toBe('none');
    expect(quotesVerified([{ verified: true }])).toBe('all');
  });
});
