import { describe, expect, it } from 'vitest';
import { nearDuplicates, nearDuplicatesOf, oneEditApart, type Vocabulary } from './near-duplicates';

// Ranks as a vocabulary of English gives them: frequent words low, content words high, typos unknown.
const RANKS: Record<string, number> = {
  the: 0, my: 5, is: 8, not: 12, please: 400, card: 2_500, arrived: 4_000, declined: 9_000, stolen: 8_000,
  export: 6_000, report: 3_000, slow: 3_500, form: 900, from: 20, account: 1_500, how: 30, are: 10, you: 3, old: 250,
};
const vocabulary: Vocabulary = { rankOf: (word) => RANKS[word] };
const words = (text: string) => [...new Set(text.toLowerCase().split(' '))].sort();
const near = (a: string, b: string) => nearDuplicatesOf(words(a), words(b), vocabulary);

describe('near-duplicates', () => {
  it('joins the same words in another order, a frequent word more, and one word mistyped', () => {
    expect(near('my card is declined', 'declined is my card')).toBe(true);
    expect(near('my card is declined', 'my card is declined please')).toBe(true);
    expect(near('my card is declined', 'my card is declnied')).toBe(true);
    expect(near('the export report is slow', 'the exprt report is slow')).toBe(true);
  });

  it('keeps apart a rare or unknown word more, a negation, a short message, and one real word for another', () => {
    expect(near('my card is declined', 'my card is declined stolen')).toBe(false);
    expect(near('my card is declined', 'my card is declined okta')).toBe(false);
    expect(near('my card arrived', 'my card not arrived')).toBe(false);
    expect(near('card declined', 'card declined please')).toBe(false);
    expect(near('my card is declined', 'my card is stolen')).toBe(false);
    // Both real words, one letter apart.
    expect(near('the form is slow', 'the from is slow')).toBe(false);
    // Two differences.
    expect(near('my card is declined', 'the card is declnied')).toBe(false);
  });

  it('tells words one edit apart', () => {
    expect(oneEditApart('declined', 'declnied')).toBe(true);
    expect(oneEditApart('declined', 'declimed')).toBe(true);
    expect(oneEditApart('declined', 'decliined')).toBe(true);
    expect(oneEditApart('declined', 'declind')).toBe(true);
    expect(oneEditApart('declined', 'declined')).toBe(false);
    expect(oneEditApart('declined', 'dcelinde')).toBe(false);
    expect(oneEditApart('declined', 'declinedss')).toBe(false);
  });

  it('groups each text with the first one it repeats, without chains, whatever the order of the others', () => {
    const texts = [
      'My card is declined',
      'Export report is slow',
      'declined: my card is!',
      'My card is declined please',
      // One word from the text before, two from the first of its group: not joined.
      'my card is declined please the',
      'Export report is slow please',
      'The export report is not slow',
    ];
    expect([...nearDuplicates(texts, vocabulary)]).toEqual([0, 1, 0, 0, 4, 1, 6]);
  });

  it('searches texts of many words for a frequent word more, not for a mistyped one', () => {
    const long = [...Array.from({ length: 60 }, (_, i) => `word${i}`), 'declined'].join(' ');
    expect([...nearDuplicates([long, `${long} the`, long.replace('declined', 'declnied')], vocabulary)]).toEqual([0, 0, 2]);
    const short = 'my card is declined';
    expect([...nearDuplicates([short, short.replace('declined', 'declnied')], vocabulary)]).toEqual([0, 0]);
  });
});
