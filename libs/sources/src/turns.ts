import { clockToMs, turnsFromText } from './speaker-lines';
import { firstString, flattenLines, groupLines, isObject, readableText, segmentsOf, type PlainObject } from './text';
import type { Segment } from './types';

/** Keys under which data commonly carries a list of turns or messages. */
export const TURN_LIST_KEYS = [
  'turns', 'messages', 'transcript', 'utterances', 'segments', 'entries', 'emails', 'dialogue', 'dialog',
  'conversation', 'thread', 'replies', 'comments', 'posts', 'chat', 'items',
] as const;

const SPEAKER_KEYS = ['speaker', 'speaker_name', 'speakerName', 'author', 'from', 'sender', 'user', 'name', 'participant', 'role'];
const TEXT_KEYS = [
  'text', 'content', 'body', 'message', 'value', 'transcript', 'utterance', 'body_text', 'text_body', 'plain_text',
  'plain', 'snippet', 'html', 'body_html',
];
const HEADING_KEYS = ['subject', 'title'];
const START_MS_KEYS = ['start_ms', 'startMs', 'start_time_ms', 'startTimeMs', 'offset_ms', 'offsetMs', 'timestamp_ms'];
const START_SECONDS_KEYS = ['start', 'start_time', 'startTime', 'start_seconds', 'offset', 'begin', 'time'];

const MAX_START_MS = 2_147_483_647;

/** A person as text: a string as is, `{name, email}` as `Name <email>`. */
export function personName(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    const names = value.map(personName).filter((n): n is string => !!n);
    return names.length ? names.join(', ') : undefined;
  }
  if (!isObject(value)) return undefined;
  const name = firstString(value, ['name', 'display_name', 'displayName', 'full_name', 'fullName', 'username', 'handle']);
  const email = firstString(value, ['email', 'address', 'email_address']);
  if (name && email) return `${name.trim()} <${email.trim()}>`;
  return (name ?? email ?? firstString(value, ['id']))?.trim();
}

function stripHtml(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|li|tr|h\d)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n');
}

function textOf(item: PlainObject): string | undefined {
  for (const key of TEXT_KEYS) {
    const value = item[key];
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') {
      if (!value.trim()) continue;
      return key.includes('html') ? stripHtml(value) : value;
    }
    // Content given as parts (`[{type: 'text', text}]`) or words (`[{word}]`).
    if (Array.isArray(value)) {
      const parts = value.map((p) => (typeof p === 'string' ? p : isObject(p) ? (firstString(p, ['text', 'word', 'content']) ?? '') : ''));
      const joined = value.every((p) => isObject(p) && typeof p.word === 'string') ? parts.join(' ') : parts.join('\n');
      if (joined.trim()) return joined;
    }
    if (isObject(value)) {
      const nested = textOf(value);
      if (nested) return nested;
    }
  }
  return undefined;
}

function startOf(item: PlainObject): number | null {
  const pick = (keys: string[], scale: number): number | null | undefined => {
    for (const key of keys) {
      const value = item[key];
      if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
        const ms = Math.round(value * scale);
        return ms <= MAX_START_MS ? ms : null;
      }
      if (typeof value === 'string') {
        const ms = clockToMs(value);
        if (ms !== null) return ms;
      }
    }
    return undefined;
  };
  return pick(START_MS_KEYS, 1) ?? pick(START_SECONDS_KEYS, 1000) ?? null;
}

/** One item of a turn list as segments, or undefined when it carries no text. */
function turnOf(item: unknown): Segment[] | undefined {
  if (typeof item === 'string') {
    if (!item.trim()) return undefined;
    return turnsFromText(item) ?? segmentsOf('text', item);
  }
  if (!isObject(item)) return undefined;
  const text = textOf(item);
  if (text === undefined) return undefined;
  let speaker: string | undefined;
  for (const key of SPEAKER_KEYS) {
    speaker = personName(item[key]);
    if (speaker) break;
  }
  const heading = firstString(item, HEADING_KEYS) ?? null;
  return segmentsOf(speaker ? 'turn' : 'text', text, { speaker: speaker ?? null, heading, startMs: startOf(item) });
}

/**
 * Turns from a list whose items look like turns (strings, or objects with a text field).
 * Undefined when most items do not, so the caller can render the list another way.
 */
export function turnsFromList(list: unknown[]): Segment[] | undefined {
  if (list.length === 0) return undefined;
  const turns = list.map(turnOf);
  const recognised = turns.filter((t) => t !== undefined).length;
  if (recognised === 0 || recognised < list.length / 2) return undefined;
  // Items without text still carry something: keep them readable rather than drop them.
  return turns.flatMap((t, i) => t ?? segmentsOf('field', readableText(list[i]), { heading: `Item ${i + 1}` }));
}

/** A value under a turn-list key: a list, a transcript string, or an object holding either. */
export function turnsFromValue(value: unknown): Segment[] | undefined {
  if (Array.isArray(value)) return turnsFromList(value);
  if (typeof value === 'string') return turnsFromText(value);
  if (isObject(value)) {
    for (const key of TURN_LIST_KEYS) {
      if (!(key in value)) continue;
      const nested = turnsFromValue(value[key]);
      if (!nested) continue;
      const rest = Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
      return [...nested, ...groupLines('field', flattenLines(rest), null)];
    }
  }
  return undefined;
}
