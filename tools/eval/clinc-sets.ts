/** CLINC150 samples as the evaluations take them (labels are for scoring only). */
import { seeded } from './seeded';

export interface Labelled {
  text: string;
  label: string;
}

/** The first `per` rows of each label, in order. */
export function sample(rows: Labelled[], per: number): Labelled[] {
  const counts = new Map<string, number>();
  return rows.filter((r) => {
    const c = counts.get(r.label) ?? 0;
    counts.set(r.label, c + 1);
    return c < per;
  });
}

/** One small edit of a text: a word dropped, two neighbouring words swapped, or two neighbouring letters of a word swapped (a typo). */
function edited(text: string, random: () => number): string {
  const words = text.split(' ');
  const kind = Math.floor(random() * 3);
  if (kind === 0 && words.length >= 3) {
    words.splice(Math.floor(random() * words.length), 1);
  } else if (kind === 1 && words.length >= 2) {
    const at = Math.floor(random() * (words.length - 1));
    [words[at], words[at + 1]] = [words[at + 1]!, words[at]!];
  } else {
    const long = words.map((w, i) => [w, i] as const).filter(([w]) => w.length >= 4);
    if (long.length === 0) return `${text} please`;
    const [w, i] = long[Math.floor(random() * long.length)]!;
    const at = 1 + Math.floor(random() * (w.length - 2));
    words[i] = w.slice(0, at - 1) + w[at] + w[at - 1] + w.slice(at + 1);
  }
  return words.join(' ');
}

/**
 * `per` texts of each label: the pool's own texts in order, then, where they run out, copies of them with
 * one small edit each (fixed seed), every text distinct. Returns the rows and how many are edited copies.
 */
export function sampleWithCopies(pool: Labelled[], per: number): { rows: Labelled[]; copies: number } {
  const byLabel = new Map<string, Labelled[]>();
  for (const r of pool) byLabel.set(r.label, [...(byLabel.get(r.label) ?? []), r]);
  const seen = new Set(pool.map((r) => r.text));
  const rows = sample(pool, per);
  let copies = 0;
  let labelIndex = 0;
  for (const [label, own] of byLabel) {
    const random = seeded(46_000 + labelIndex++);
    for (let k = own.length; k < per; k++) {
      let text = edited(own[k % own.length]!.text, random);
      for (let tries = 0; seen.has(text) && tries < 20; tries++) text = edited(text, random);
      if (seen.has(text)) text = `${text} ${k}`;
      seen.add(text);
      rows.push({ text, label });
      copies++;
    }
  }
  return { rows, copies };
}
