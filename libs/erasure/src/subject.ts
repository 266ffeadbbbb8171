import { createHash } from 'node:crypto';
import { foldIdentifier, foldName, MIN_NAME_LENGTH, type PersonEntry, type Subject, type SubjectKind } from './match';

/** How long a dry run's preview can be confirmed; then it expires and what it found of the person is dropped. */
export const PREVIEW_TTL_MS = 24 * 3600_000;
/** At most this many names are offered by a preview. */
export const MAX_OFFERED_NAMES = 20;
/** Samples a preview keeps of each kind of row. */
export const SAMPLES_PER_KIND = 3;
/** Found values kept of each kind, and other participants counted per shared value. */
const MAX_FOUND = 100;
const MAX_SHARERS = 10;

export type SampleKind = 'record' | 'source' | 'signal' | 'signal_change' | 'opportunity' | 'shaping_note' | 'other';

/** One row a dry run would change: where, and an excerpt of it before and after (`after` null: deleted). */
export interface Sample {
  kind: SampleKind;
  id: string;
  field: string;
  before: string;
  after: string | null;
}

/**
 * What an erasure request knows of the person while it runs, in its `subject` column (set to NULL when
 * it completes or its preview expires):
 *
 * - `given`: the address and participant id asked for (folded): the seeds;
 * - `found`: what the participant entries carrying a given identifier also say (their other address or
 *   id, their names; a signal's `who_said_it` beside a given participant id): one hop, never further;
 * - `shared`: found values another participant also carries (an entry with an address or id the person
 *   does not have), each with short hashes of those participants: never used;
 * - `names`: the names the requester confirmed from a preview (used when found and not shared);
 * - `preview`: a dry run's samples and, per offered name, how many more rows it would change.
 */
export interface SubjectState {
  version: 2;
  given: { emails: string[]; ids: string[] };
  dryRun: boolean;
  names: string[];
  found: { emails: string[]; ids: string[]; names: string[] };
  shared: Record<string, string[]>;
  preview?: { samples: Sample[]; mentions: Record<string, number>; previewedAt?: number };
}

export function newState(given: { emails: string[]; ids: string[] }, dryRun: boolean, names: string[] = []): SubjectState {
  return {
    version: 2, given: { emails: given.emails.map(foldIdentifier), ids: given.ids.map(foldIdentifier) }, dryRun, names,
    found: { emails: [], ids: [], names: [] }, shared: {}, ...(dryRun ? { preview: { samples: [], mentions: {} } } : {}),
  };
}

/**
 * The state of a request's `subject`. A request written before previews (`{emails, ids, names}`, with
 * the names it found assumed) carries on with its addresses and ids only: names are never assumed.
 */
export function readState(raw: unknown): SubjectState {
  const o = (raw ?? {}) as Partial<SubjectState> & { emails?: string[]; ids?: string[] };
  if (o.version === 2 && o.given && o.found) return { ...o, shared: o.shared ?? {}, names: o.names ?? [] } as SubjectState;
  return newState({ emails: o.emails ?? [], ids: o.ids ?? [] }, false);
}

const uniq = (values: string[], fold: (s: string) => string) => {
  const seen = new Set<string>();
  return values.filter((v) => {
    const f = fold(v);
    if (!f || seen.has(f)) return false;
    seen.add(f);
    return true;
  });
};

/** Adds what a participant entry of the person says: ids and addresses only from participant lists (`identifiers`). */
export function addFound(state: SubjectState, entry: PersonEntry, identifiers: boolean): void {
  const f = state.found;
  if (identifiers) {
    f.ids = uniq([...f.ids, ...entry.ids.map(foldIdentifier)], (s) => s).filter((s) => s.length <= 320).slice(0, MAX_FOUND);
    f.emails = uniq([...f.emails, ...entry.emails.map(foldIdentifier)], (s) => s).filter((s) => s.length <= 320).slice(0, MAX_FOUND);
  } else {
    f.emails = uniq([...f.emails, ...entry.emails.map(foldIdentifier)], (s) => s).filter((s) => s.length <= 320).slice(0, MAX_FOUND);
  }
  f.names = uniq([...f.names, ...entry.names.map((n) => n.trim().replace(/\s+/gu, ' '))], foldName).filter((s) => s.length <= 256).slice(0, MAX_FOUND);
}

/** Every address and id the person is known by: given and found (folded). */
export function knownIdentifiers(state: SubjectState): Set<string> {
  return new Set([...state.given.emails, ...state.given.ids, ...state.found.emails, ...state.found.ids]);
}

export const shortHash = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 12);

/** Marks a found value as carried by another participant too (`other`: one of that participant's identifiers). */
export function markShared(state: SubjectState, folded: string, other: string): void {
  const list = state.shared[folded] ?? [];
  const h = shortHash(other);
  if (list.includes(h) || list.length >= MAX_SHARERS) return;
  state.shared[folded] = [...list, h];
}

const isShared = (state: SubjectState, folded: string) => (state.shared[folded]?.length ?? 0) > 0;

/**
 * What the redaction looks for: the given addresses and ids, those found beside them that no other
 * participant carries, and the confirmed names that were found beside them and are not shared.
 */
export function activeSubject(state: SubjectState): Subject {
  const ids = uniq([...state.given.ids, ...state.found.ids.filter((v) => !isShared(state, v))], (s) => s);
  const emails = uniq([...state.given.emails, ...state.found.emails.filter((v) => !isShared(state, v))], (s) => s);
  const found = new Set(state.found.names.map(foldName));
  const names = state.names.filter((n) => found.has(foldName(n)) && !isShared(state, foldName(n)) && foldName(n).length >= MIN_NAME_LENGTH);
  return { emails, ids, names };
}

export interface OfferedName {
  name: string;
  shared: boolean;
  /** Other participants (with an address or id the person does not have) carrying the same name, up to 10. */
  sharedWith: number;
}

/** The names a preview offers: found beside the person's addresses and ids, at least 3 characters, not themselves an address or id. */
export function offeredNames(state: SubjectState): OfferedName[] {
  const identifiers = knownIdentifiers(state);
  return state.found.names
    .filter((n) => foldName(n).length >= MIN_NAME_LENGTH && !identifiers.has(foldIdentifier(n)))
    .slice(0, MAX_OFFERED_NAMES)
    .map((name) => ({ name, shared: isShared(state, foldName(name)), sharedWith: state.shared[foldName(name)]?.length ?? 0 }));
}

export interface FoundIdentifier {
  kind: SubjectKind;
  value: string;
  shared: boolean;
  sharedWith: number;
}

/** The addresses and ids found beside the given ones: used unless shared. */
export function foundIdentifiers(state: SubjectState): FoundIdentifier[] {
  const given = new Set([...state.given.emails, ...state.given.ids]);
  const out: FoundIdentifier[] = [];
  for (const [kind, values] of [['email', state.found.emails], ['participant_id', state.found.ids]] as const) {
    for (const value of values) {
      if (given.has(value) || (kind === 'participant_id' && state.found.emails.includes(value))) continue;
      out.push({ kind, value, shared: isShared(state, value), sharedWith: state.shared[value]?.length ?? 0 });
    }
  }
  return out;
}

/** Keeps a sample when its kind has fewer than SAMPLES_PER_KIND. */
export function addSample(state: SubjectState, sample: Sample): void {
  const p = state.preview;
  if (!p || p.samples.filter((s) => s.kind === sample.kind).length >= SAMPLES_PER_KIND) return;
  p.samples.push(sample);
}

const EXCERPT = 160;

/** Both texts cut around where they first differ. */
export function excerpt(before: string, after: string): { before: string; after: string } {
  let p = 0;
  while (p < before.length && p < after.length && before[p] === after[p]) p++;
  const start = Math.max(0, p - 60);
  const cut = (s: string) => `${start > 0 ? '…' : ''}${s.slice(start, start + EXCERPT)}${s.length > start + EXCERPT ? '…' : ''}`;
  return { before: cut(before), after: cut(after) };
}

/** Where two JSON values first differ (`path` names it), with excerpts of both there. */
export function firstDifference(before: unknown, after: unknown, path: string): { field: string; before: string; after: string } | undefined {
  if (typeof before === 'string' && typeof after === 'string') return before === after ? undefined : { field: path, ...excerpt(before, after) };
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    for (let i = 0; i < before.length; i++) {
      const d = firstDifference(before[i], after[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (isObj(before) && isObj(after)) {
    const a = Object.entries(before);
    const b = Object.entries(after);
    if (a.length === b.length && a.every(([k], i) => b[i]![0] === k)) {
      // an object erased whole (a turn they spoke): shown whole, "speaker: …, text: …"
      const strings = a.filter(([, v]) => typeof v === 'string' && v);
      if (strings.length >= 2 && strings.every(([k, v]) => after[k] !== v)) {
        const show = (o: Record<string, unknown>) => Object.entries(o).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
        return { field: path, ...excerpt(show(before), show(after)) };
      }
      for (let i = 0; i < a.length; i++) {
        const d = firstDifference(a[i]![1], b[i]![1], path ? `${path}.${a[i]![0]}` : a[i]![0]);
        if (d) return d;
      }
      return undefined;
    }
  }
  const x = JSON.stringify(before) ?? 'null';
  const y = JSON.stringify(after) ?? 'null';
  return x === y ? undefined : { field: path, ...excerpt(x, y) };
}
