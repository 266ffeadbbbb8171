import { createHash } from 'node:crypto';

/** What an erased turn, quote, name or address becomes. */
export const ERASED = '[erased]';

export type SubjectKind = 'email' | 'participant_id';

/**
 * The shortest participant id an erasure accepts. Ids of one or two characters (`7`, `42`, `A1`) are
 * list positions and counters as often as they are people, and no vendor Loupe reads issues them
 * (Zendesk, Intercom, Gong and Slack ids are ten characters or more): such a person is erased by
 * their email instead.
 */
export const MIN_PARTICIPANT_ID_LENGTH = 3;

/** A name shorter than this is never looked for in text (it would cut into other words and people). */
export const MIN_NAME_LENGTH = 3;

/**
 * An id is looked for in free text (a turn, a title, a quote) only from this length, and only when it
 * is not a plain word (it has a digit or a sign such as `-`, `_`, `.`): `123`, `p-1` or `support` are
 * other numbers and words there. Shorter ids are still matched exactly wherever an id is expected
 * (participant entries, `id`/`participant_id`/`user_id` fields, speakers, a signal's participant id).
 */
export const MIN_FREE_TEXT_ID_LENGTH = 6;

/** How emails and participant ids are compared: trimmed and lower-cased (as suppressions hash them). */
export function foldIdentifier(value: string): string {
  return value.trim().toLowerCase();
}

/** How names and speakers are compared: trimmed, inner whitespace collapsed, lower-cased. */
export function foldName(value: string): string {
  return value.trim().replace(/\s+/gu, ' ').toLowerCase();
}

/** Emails compare lower-cased; participant ids exactly as sent, trimmed (the request's audit hash, kept as it was). */
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

/** What the redaction looks for: the person's addresses and ids, and the names the requester confirmed. */
export interface Subject {
  emails: string[];
  ids: string[];
  names: string[];
}

const EMAIL = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/u;
const isEmail = (s: string) => EMAIL.test(s.trim());

/** "Ana Planted <ana@globex.test>" (a sender or a speaker): its name and address. */
export function parseAngle(value: string): { name: string; email: string } | undefined {
  const m = /^\s*"?([^"<>]{0,256}?)"?\s*<([^<>\s]+@[^<>\s]+)>\s*$/u.exec(value);
  return m ? { name: m[1]!.trim(), email: m[2]!.trim() } : undefined;
}

/** Keys whose value identifies a person exactly: an address, a participant or user id. */
const IDENTIFIER_KEYS = new Set(['email', 'email_address', 'emailaddress', 'participant_id', 'participantid', 'user_id', 'userid']);
/** Keys whose value is a person's name. */
const NAME_KEYS = new Set(['name', 'display_name', 'displayname', 'full_name', 'fullname', 'username', 'handle', 'speaker_name', 'speakername']);
/** Keys whose value says who spoke, sent or wrote: a name, an id, an address, "Name <address>", or an object of those. */
const BY_KEYS = new Set(['speaker', 'from', 'sender', 'author', 'user', 'who_said_it', 'participant']);
/** At the top of a record's `data` only the sender says the whole record is theirs. */
const SENDER_KEYS = new Set(['from', 'sender', 'author', 'speaker', 'user']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : undefined);

/** A person as an object describes them: ids and addresses (folded) and names (as written). */
export interface PersonEntry {
  ids: string[];
  emails: string[];
  names: string[];
}

/**
 * The person an object describes, when it describes one. `entry` says the object is a person by its
 * place (an element of a participant list, the value of `from` or `user`), so its `id` is theirs;
 * elsewhere `id` counts only beside a name or an address (a message's `id` is not a person's). An id
 * equal to the entry's name is a name (sources without participants list speakers as `{id: name}`),
 * and an id that is an address is an address too.
 */
export function personEntry(o: Obj, entry: boolean): PersonEntry | undefined {
  const names: string[] = [];
  const emails: string[] = [];
  const ids: string[] = [];
  let personLike = entry;
  for (const [k, v] of Object.entries(o)) {
    const key = k.toLowerCase();
    const s = text(v);
    if (!s) continue;
    if (NAME_KEYS.has(key)) {
      personLike = true;
      const angle = parseAngle(s);
      if (angle) {
        emails.push(foldIdentifier(angle.email));
        if (angle.name) names.push(angle.name);
      } else names.push(s);
    } else if (key === 'email' || key === 'email_address' || key === 'emailaddress') {
      personLike = true;
      const angle = parseAngle(s);
      emails.push(foldIdentifier(angle ? angle.email : s));
      if (angle?.name) names.push(angle.name);
    } else if (IDENTIFIER_KEYS.has(key)) {
      ids.push(s);
    } else if (key === 'role') personLike = true;
  }
  const id = text(o.id);
  if (id && personLike) ids.push(id);
  const nameSet = new Set(names.map(foldName));
  const realIds: string[] = [];
  for (const i of ids) {
    const angle = parseAngle(i);
    if (angle) {
      // a speaker written "Name <address>" standing as an id: its address and name
      emails.push(foldIdentifier(angle.email));
      if (angle.name && !nameSet.has(foldName(angle.name))) names.push(angle.name);
      continue;
    }
    if (nameSet.has(foldName(i))) continue;
    if (isEmail(i)) emails.push(foldIdentifier(i));
    realIds.push(foldIdentifier(i));
  }
  if (!realIds.length && !emails.length && !names.length) return undefined;
  return { ids: [...new Set(realIds)], emails: [...new Set(emails)], names };
}

/**
 * Every person a JSON value describes: participant entries (`list` says the value is a participant
 * list), objects with an address or participant id, senders and speakers written "Name <address>".
 * Iterative, so no depth overflows.
 */
export function personEntries(value: unknown, list = false): PersonEntry[] {
  const out: PersonEntry[] = [];
  const stack: Array<{ v: unknown; entry: boolean }> = [];
  if (list && Array.isArray(value)) for (const v of value) stack.push({ v, entry: true });
  else stack.push({ v: value, entry: false });
  let seen = 0;
  while (stack.length && seen++ < 100_000) {
    const { v, entry } = stack.pop()!;
    if (typeof v === 'string') {
      const angle = parseAngle(v);
      if (angle) out.push({ ids: [], emails: [foldIdentifier(angle.email)], names: angle.name ? [angle.name] : [] });
      continue;
    }
    if (Array.isArray(v)) {
      for (const x of v) stack.push({ v: x, entry: false });
      continue;
    }
    if (!isObj(v)) continue;
    const found = personEntry(v, entry);
    if (found && (entry || found.ids.length || found.emails.length)) out.push(found);
    for (const [k, x] of Object.entries(v)) {
      // the value of `from`, `user`, … is a person by its place; an angle string there is read above
      const byPlace = BY_KEYS.has(k.toLowerCase()) && isObj(x);
      if (typeof x === 'string' && !NAME_KEYS.has(k.toLowerCase()) && k.toLowerCase() !== 'email') stack.push({ v: x, entry: false });
      else if (typeof x === 'object' && x !== null) stack.push({ v: x, entry: byPlace });
    }
  }
  return out;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Characters that continue an address, an id or a name: a match never starts or ends inside them. */
const BEFORE = '(?<![\\p{L}\\p{N}_@+.\\-])';
const AFTER = '(?![\\p{L}\\p{N}_@+]|[.\\-][\\p{L}\\p{N}_])';

/** Whether an id is distinctive enough to be looked for in free text (see MIN_FREE_TEXT_ID_LENGTH). */
export function idInFreeText(id: string): boolean {
  const v = id.trim();
  return v.length >= MIN_FREE_TEXT_ID_LENGTH && /[^\p{L}\s]/u.test(v);
}

/**
 * Finds and redacts a person. Two tests, never mixed:
 *
 * - *Who someone is* (a participant entry, a speaker, a sender, who said a signal): equal, case-folded
 *   and trimmed, to one of the person's addresses, ids or confirmed names, or to a name that
 *   identifies them in this record or source only (`scoped`); "Name <address>" is theirs when the
 *   address is. Never by containment: "Customer" is not "Customer 2", `cust-1` is not `cust-10`.
 * - *Mentions in text*: their addresses, distinctive ids and confirmed names as whole tokens: a match
 *   never starts or ends inside an address, an id or a word (`bob.ana@x.test` does not hold
 *   `ana@x.test`, `p-1-2` does not hold `p-1`, `Mary-Ana` does not hold `Ana`).
 */
export class Matcher {
  /** Lower-cased strings any row naming the person holds (the ILIKE pre-filter; the exact tests are below). */
  readonly needles: string[];
  private readonly identifiers: Set<string>;
  private readonly identities: Set<string>;
  private readonly pattern: RegExp | undefined;

  constructor(readonly subject: Subject, private readonly local: ReadonlySet<string> = new Set(), shared?: Matcher) {
    if (shared) {
      this.needles = shared.needles;
      this.identifiers = shared.identifiers;
      this.identities = shared.identities;
      this.pattern = shared.pattern;
      return;
    }
    const emails = subject.emails.map(foldIdentifier).filter(Boolean);
    const ids = subject.ids.map(foldIdentifier).filter(Boolean);
    const names = subject.names.map(foldName).filter((n) => n.length >= MIN_NAME_LENGTH);
    this.identifiers = new Set([...emails, ...ids]);
    this.identities = new Set([...emails, ...ids.map(foldName), ...names]);
    this.needles = [...new Set([...emails, ...ids, ...names])].sort((a, b) => b.length - a.length);
    const inText = [...new Set([...emails, ...ids.filter(idInFreeText), ...names])].sort((a, b) => b.length - a.length);
    this.pattern = inText.length ? new RegExp(`${BEFORE}(?:${inText.map(escape).join('|')})${AFTER}`, 'giu') : undefined;
  }

  /** This matcher, with names that identify the person within one record or source (see `localNames`). */
  scoped(local: ReadonlySet<string>): Matcher {
    return local.size ? new Matcher(this.subject, local, this) : this;
  }

  /** ILIKE patterns that find a candidate row by its text (the exact tests are `identifies` and `mentions`). */
  likePatterns(): string[] {
    return this.needles.map((n) => `%${n.replace(/[\\%_]/g, '\\$&')}%`);
  }

  /** An address or participant id of the person (exact, case-folded). */
  hasIdentifier(value: string): boolean {
    const angle = parseAngle(value);
    return this.identifiers.has(foldIdentifier(angle ? angle.email : value));
  }

  /** A value that says who someone is and is the person (see the class). */
  identifies(value: unknown): boolean {
    const s = text(value);
    if (!s) return false;
    const angle = parseAngle(s);
    if (angle) return this.identifiers.has(foldIdentifier(angle.email));
    const f = foldName(s);
    return this.identities.has(f) || this.local.has(f);
  }

  mentions(value: string | null | undefined): boolean {
    if (!value || !this.pattern) return false;
    this.pattern.lastIndex = 0;
    return this.pattern.test(value);
  }

  /** The text with every mention of the person replaced by the marker. */
  redact(value: string): string {
    if (!this.pattern) return value;
    return value.replace(this.pattern, ERASED);
  }

  /**
   * Whether a value is the person: a string that identifies them, or an object that does by a key
   * saying who it is (at the top of a record's `data`, only its sender). An object carrying another
   * person's address or participant id is never theirs, whatever name it gives; `entry` says the
   * object is a person by its place, so its `id` is a person's id.
   */
  isPerson(value: unknown, mode: 'top' | 'any' | 'entry' = 'entry'): boolean {
    if (!isObj(value)) return this.identifies(value);
    const keys = mode === 'top' ? SENDER_KEYS : undefined;
    let personLike = mode === 'entry';
    for (const [k, v] of Object.entries(value)) {
      const key = k.toLowerCase();
      if (NAME_KEYS.has(key) || IDENTIFIER_KEYS.has(key) || key === 'role') personLike = true;
      const s = text(v);
      if (s && IDENTIFIER_KEYS.has(key) && !this.hasIdentifier(s)) return false;
    }
    const id = text(value.id);
    if (mode !== 'top' && personLike && id) {
      const isName = Object.entries(value).some(([k, v]) => NAME_KEYS.has(k.toLowerCase()) && typeof v === 'string' && foldName(v) === foldName(id));
      if (this.identifies(id)) return true;
      if (!isName) return false; // someone else's id
    }
    for (const [k, v] of Object.entries(value)) {
      const key = k.toLowerCase();
      if (keys ? !keys.has(key) : !(IDENTIFIER_KEYS.has(key) || NAME_KEYS.has(key) || BY_KEYS.has(key))) continue;
      if (isObj(v) ? BY_KEYS.has(key) && this.isPerson(v, 'entry') : this.identifies(v)) return true;
    }
    return false;
  }

  /**
   * A record's `data` (or any stored JSON) with the person taken out: an object that is theirs (a
   * participant entry, a turn or message they spoke or sent) keeps its shape with every string erased;
   * elsewhere their address, id and confirmed names are replaced in the text. `top` is the record's
   * `data` itself, which is theirs only when its sender is them.
   */
  redactJson(value: unknown, top = false): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.redactJson(v));
    if (!isObj(value)) return value;
    const theirs = this.isPerson(value, top ? 'top' : 'any');
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) out[this.redact(k)] = theirs ? eraseAll(v) : this.redactJson(v);
    return out;
  }

  /** Every string of a JSON value with mentions replaced, nothing else changed (job payloads and results). */
  redactStrings(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.redactStrings(v));
    if (!isObj(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.redactStrings(v)]));
  }

  /** A participant list without the person's entries. */
  withoutPerson(list: unknown): unknown {
    if (!Array.isArray(list)) return list;
    return list.filter((p) => !this.isPerson(p, 'entry')).map((p) => this.redactJson(p));
  }

  /**
   * Markdown (a shaping note) with the person taken out: a quotation (a `>` paragraph) that names them
   * is replaced whole, since it is their words; elsewhere their name, address and id are replaced.
   */
  redactMarkdown(value: string): string {
    const lines = value.split('\n');
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

/**
 * Names that identify the person within one record or source: the names of its participant entries
 * that carry the person's address or id, unless another entry of the same list carries the same name.
 * In a call whose participants are `{id: "cust-1", name: "Customer"}` and Bob, the speaker "Customer"
 * is cust-1; in another call it is whoever that call's "Customer" is. Used only to say who spoke or
 * sent (speakers, senders, who said a signal), never searched for in text.
 */
export function localNames(m: Matcher, participants: unknown): Set<string> {
  const mine = new Set<string>();
  const others = new Set<string>();
  if (!Array.isArray(participants)) return mine;
  for (const p of participants) {
    if (!isObj(p)) continue;
    const entry = personEntry(p, true);
    if (!entry) continue;
    const theirs = [...entry.ids, ...entry.emails].some((v) => m.hasIdentifier(v));
    for (const n of entry.names) (theirs ? mine : others).add(foldName(n));
  }
  for (const n of others) mine.delete(n);
  return mine;
}

function eraseAll(value: unknown): unknown {
  if (typeof value === 'string') return value ? ERASED : value;
  if (Array.isArray(value)) return value.map(eraseAll);
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, eraseAll(v)]));
  return value;
}
