/**
 * The shape of a parsed query, read from the text form of PostgreSQL's `websearch_to_tsquery`:
 * its top-level AND operands (a word, a "phrase" as `'a' <-> 'b'`, a parenthesised group) split into
 * the ones to find and the excluded ones (`-word` → `!'word'`), or a top-level OR (`a or b`).
 */
export interface QueryShape {
  /** The operands to find: all of them for the strict pass, any of them for the loose one. */
  positives: string[];
  /** `!…` operands, kept in every pass. */
  negatives: string[];
  /** The whole query is already an OR (`a or b`): there is no looser pass. */
  topLevelOr: boolean;
}

/** Splits `text` on `sep` where it is outside quotes and parentheses. */
function splitTopLevel(text: string, sep: '&' | '|'): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "'") {
        if (text[i + 1] === "'") i++; // '' inside a lexeme
        else quoted = false;
      }
      continue;
    }
    if (c === "'") quoted = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter(Boolean);
}

/** `(…)` around the whole operand, removed. */
function unwrap(text: string): string {
  let t = text.trim();
  while (t.startsWith('(') && t.endsWith(')') && balanced(t.slice(1, -1))) t = t.slice(1, -1).trim();
  return t;
}

function balanced(text: string): boolean {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "'") {
        if (text[i + 1] === "'") i++;
        else quoted = false;
      }
      continue;
    }
    if (c === "'") quoted = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

export function queryShape(tsquery: string): QueryShape {
  const text = unwrap(tsquery);
  if (!text) return { positives: [], negatives: [], topLevelOr: false };
  if (splitTopLevel(text, '|').length > 1) return { positives: [text], negatives: [], topLevelOr: true };
  const operands = splitTopLevel(text, '&').map(unwrap);
  return {
    positives: operands.filter((o) => !o.startsWith('!')),
    negatives: operands.filter((o) => o.startsWith('!')),
    topLevelOr: false,
  };
}

/** The lexemes an operand names (`'export' <-> 'csv'` → export, csv). */
export function lexemesOf(operand: string): string[] {
  return [...operand.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replaceAll("''", "'"));
}

/** The loose pass: any of the positive operands, none of the negative ones. */
export function anyOf(shape: QueryShape, positives = shape.positives): string {
  const any = positives.length === 1 ? positives[0]! : `( ${positives.map((p) => `( ${p} )`).join(' | ')} )`;
  return [any, ...shape.negatives].join(' & ');
}
