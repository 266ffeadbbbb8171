import { createHash } from 'node:crypto';

/** What an erased turn, quote, name or address becomes. */
export const ERASED = '[erased]';

export type SubjectKind = 'email' | 'participant_id';

/** Emails compare lower-cased; participant ids exactly as sent, trimmed. */
export function normaliseSubject(kind: SubjectKind, value: string): string {
  const v = value.trim();
  return kind === 'email' ? v.toLowerCase() : v;
}

/**
 * The only form in which a person stays in the database once their erasure has ended: SHA-256 of the
 * workspace id, the kind and the normalised value. The workspace id is the salt, so one person's hash
 * differs between workspaces and a table of hashed addresses is of no use across them. (Whoever already
 * knows an address can still confirm it was erased here: that is what a suppression must do.)
 */
export function subjectHash(workspaceId: string, kind: SubjectKind, value: string): string {
  return createHash('sha256').update(`${workspaceId}\n${kind}\n${normaliseSubject(kind, value)}`).digest('hex');
}

/** The strings that name the person: the email and participant id asked for and what the worker found with them. */
export interface Subject {
  emails: string[];
  ids: string[];
  names: string[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Keys whose value says who a participant entry, message or turn is (by, from, of whom). */
const PERSON_KEYS = new Set(['id', 'email', 'name', 'participant_id', 'user_id', 'speaker', 'from', 'sender', 'author', 'user', 'who_said_it', 'display_name', 'full_name']);
/** At the top of a record's `data` only the sender says the whole record is theirs. */
const SENDER_KEYS = new Set(['from', 'sender', 'author', 'speaker', 'user']);

/**
 * Finds and redacts a person in text and JSON. Names shorter than 3 characters are not looked for
 * (they would erase parts of other words and people); every needle matches whole words, case-insensitively.
 */
export class Matcher {
  readonly needles: string[];
  private readonly pattern: RegExp | undefined;

  constructor(readonly subject: Subject) {
    const all = [...subject.emails, ...subject.ids, ...subject.names.filter((n) => n.trim().length >= 3)]
      .map((n) => n.trim()).filter(Boolean);
    this.needles = [...new Set(all.map((n) => n.toLowerCase()))].sort((a, b) => b.length - a.length);
    this.pattern = this.needles.length
      ? new RegExp(`(?<![\\p{L}\\p{N}_])(?:${this.needles.map(escape).join('|')})(?![\\p{L}\\p{N}_])`, 'giu')
      : undefined;
  }

  /** ILIKE patterns that find a candidate row by its text (the exact test is `mentions`). */
  likePatterns(): string[] {
    return this.needles.map((n) => `%${n.replace(/[\\%_]/g, '\\$&')}%`);
  }

  mentions(text: string | null | undefined): boolean {
    if (!text || !this.pattern) return false;
    this.pattern.lastIndex = 0;
    return this.pattern.test(text);
  }

  /** The text with every mention of the person replaced by the marker. */
  redact(text: string): string {
    if (!this.pattern) return text;
    return text.replace(this.pattern, ERASED);
  }

  /** A participant entry, speaker value or sender that is the person. */
  isPerson(value: unknown): boolean {
    if (typeof value === 'string') return this.mentions(value);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
    return Object.entries(value).some(([k, v]) => PERSON_KEYS.has(k.toLowerCase()) && this.isPerson(v));
  }

  /** Whether any string in the JSON value mentions the person. */
  mentionsJson(value: unknown): boolean {
    if (typeof value === 'string') return this.mentions(value);
    if (Array.isArray(value)) return value.some((v) => this.mentionsJson(v));
    if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => this.mentions(k) || this.mentionsJson(v));
    return false;
  }

  /**
   * A record's `data` (or any stored JSON) with the person taken out: an object that is theirs (a
   * participant entry, a turn or message they spoke or sent) keeps its shape with every string erased;
   * elsewhere their name, address and id are replaced in the text. `top` is the record's `data` itself,
   * which is theirs only when its sender is them.
   */
  redactJson(value: unknown, top = false): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.redactJson(v));
    if (!value || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    const theirs = entries.some(([k, v]) => (top ? SENDER_KEYS : PERSON_KEYS).has(k.toLowerCase()) && this.isPerson(v));
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) out[this.redact(k)] = theirs ? eraseAll(v) : this.redactJson(v);
    return out;
  }

  /** A participant list without the person's entries. */
  withoutPerson(list: unknown): unknown {
    if (!Array.isArray(list)) return list;
    return list.filter((p) => !this.isPerson(p)).map((p) => this.redactJson(p));
  }

  /**
   * Markdown (a shaping note) with the person taken out: a quotation (a `>` paragraph) that names them
   * is replaced whole, since it is their words; elsewhere their name, address and id are replaced.
   */
  redactMarkdown(text: string): string {
    const lines = text.split('\n');
    const out: string[] = [];
    for (let i = 0; i < lines.length;) {
      if (/^\s*>/.test(lines[i]!)) {
        let j = i;
        while (j < lines.length && /^\s*>/.test(lines[j]!)) j++;
        // the attribution line right after a quotation ("— Ana, Globex") belongs to it
        const attribution = j < lines.length && /^\s*(?:[-—–]|&mdash;)/.test(lines[j]!) ? 1 : 0;
        const block = lines.slice(i, j + attribution);
        if (block.some((l) => this.mentions(l))) out.push(`> ${ERASED}`);
        else out.push(...block);
        i = j + attribution;
        continue;
      }
      out.push(this.redact(lines[i]!));
      i++;
    }
    return out.join('\n');
  }
}

function eraseAll(value: unknown): unknown {
  if (typeof value === 'string') return value ? ERASED : value;
  if (Array.isArray(value)) return value.map(eraseAll);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, eraseAll(v)]));
  return value;
}
