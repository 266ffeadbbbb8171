/**
 * What a shaping note cites, checked (issue 48): the source and signal ids it names must exist in the
 * workspace, and each quote is matched against the sources it is attributed to: those cited in its own
 * paragraph (a signal counts as its source), else those cited anywhere in the note. Computed when a note
 * is read or written, so a source deleted since shows as unknown.
 */
import type pg from 'pg';
import { findQuote, quotesIn, readSourceWords, type SourceWords } from '@loupe/evidence';

export interface CitedQuote {
  text: string;
  verified: boolean;
  /** The source it was found in, and where. */
  sourceId?: string;
  position?: number;
  speaker?: string;
}

export interface NoteCitations {
  sources: string[];
  signals: string[];
  /** Cited ids that are no source or signal of this workspace. */
  unknownIds: string[];
  /** Quotes checked against the sources they are attributed to. */
  quotes: CitedQuote[];
  /** Quotes in a note that cites no existing source or signal: nothing to check them against. */
  unattributed: string[];
}

const CITED = /\b(?:src|sig)_[0-9A-Za-z]+\b/g;

const idsIn = (text: string) => [...new Set(text.match(CITED) ?? [])];

/** Paragraphs: blocks between blank lines. */
const paragraphsOf = (content: string) => content.split(/\n\s*\n/);

export async function checkCitations(db: Pick<pg.Pool, 'query'>, workspaceId: string, content: string): Promise<NoteCitations> {
  const cited = idsIn(content);
  const { rows: sources } = await db.query<{ id: string }>('SELECT id FROM sources WHERE workspace_id = $1 AND id = ANY($2::text[])', [workspaceId, cited.filter((id) => id.startsWith('src_'))]);
  const { rows: signals } = await db.query<{ id: string; source_id: string }>('SELECT id, source_id FROM signals WHERE workspace_id = $1 AND id = ANY($2::text[])', [workspaceId, cited.filter((id) => id.startsWith('sig_'))]);
  const sourceOfId = new Map<string, string>([...sources.map((s) => [s.id, s.id] as const), ...signals.map((s) => [s.id, s.source_id] as const)]);
  const noteSources = [...new Set(cited.map((id) => sourceOfId.get(id)).filter((s): s is string => !!s))];
  const words = new Map<string, SourceWords>();
  const wordsOf = async (sourceId: string) => {
    let w = words.get(sourceId);
    if (!w) words.set(sourceId, (w = await readSourceWords(db, sourceId)));
    return w;
  };
  const quotes: CitedQuote[] = [];
  const unattributed: string[] = [];
  const seen = new Set<string>();
  for (const paragraph of paragraphsOf(content)) {
    const own = [...new Set(idsIn(paragraph).map((id) => sourceOfId.get(id)).filter((s): s is string => !!s))];
    const against = own.length ? own : noteSources;
    for (const text of quotesIn(paragraph)) {
      if (seen.has(text)) continue;
      seen.add(text);
      if (!against.length) {
        unattributed.push(text);
        continue;
      }
      let check: CitedQuote = { text, verified: false };
      for (const sourceId of against) {
        const match = findQuote(await wordsOf(sourceId), text);
        if (match) {
          check = { text, verified: true, sourceId, position: match.position, ...(match.speaker ? { speaker: match.speaker } : {}) };
          break;
        }
      }
      quotes.push(check);
    }
  }
  return {
    sources: sources.map((s) => s.id).sort(), signals: signals.map((s) => s.id).sort(),
    unknownIds: cited.filter((id) => !sourceOfId.has(id)), quotes, unattributed,
  };
}
