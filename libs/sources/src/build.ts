import { rowsFromSheets, rowsSegments, ROW_LIST_KEYS } from './rows';
import { firstMarkdownTitle, sectionsFromList, sectionsFromMarkdown } from './sections';
import { turnsFromText } from './speaker-lines';
import { groupLines, humanize, flattenLines, isObject, readableText, scalarText, segmentsOf, clean, type PlainObject } from './text';
import { personName, turnsFromValue, TURN_LIST_KEYS } from './turns';
import type { Segment, SourceDraft, SourceRecord } from './types';

const CONVERSATIONS = new Set(['call', 'call_transcription', 'conversation', 'message', 'email', 'email_thread']);
const DOCUMENTS = new Set(['meeting_notes', 'document']);

const TYPE_LABELS: Record<string, string> = {
  call: 'Call',
  call_transcription: 'Call transcript',
  conversation: 'Conversation',
  message: 'Message',
  email: 'Email',
  email_thread: 'Email thread',
  meeting_notes: 'Meeting notes',
  document: 'Document',
  spreadsheet: 'Spreadsheet',
};

const CONVERSATION_TITLE_KEYS = ['title', 'subject', 'topic', 'meeting_title', 'call_title'];
const DOCUMENT_TITLE_KEYS = ['title', 'name', 'subject', 'topic', 'meeting_title', 'filename', 'file_name'];
/** The main text of a record; rendered without a heading of its own. */
const BODY_KEYS = new Set(['content', 'body', 'text', 'markdown', 'message', 'transcript', 'body_text', 'plain_text']);
const MESSAGE_SPEAKER_KEYS = ['from', 'sender', 'author', 'speaker', 'user'];
/** In documents only these lists are read as turns (a meeting transcript); other lists are content. */
const DOCUMENT_TURN_KEYS = new Set(['transcript', 'turns', 'utterances', 'messages', 'dialogue', 'dialog']);
const SHORT_FIELD_CHARS = 200;

export class SourceBuildError extends Error {
  override name = 'SourceBuildError';
}

function oneLine(text: string, max = 300): string {
  const line = text.split(/\r?\n/).find((l) => l.trim()) ?? '';
  const collapsed = clean(line.replace(/^\s*#+\s*/, '').replace(/\s+/g, ' ').trim());
  return collapsed.length > max ? `${collapsed.slice(0, max - 1).trimEnd()}…` : collapsed;
}

function titleOf(record: SourceRecord, data: PlainObject | undefined): { title: string; key?: string } {
  if (data) {
    const keys = CONVERSATIONS.has(record.type) ? CONVERSATION_TITLE_KEYS : DOCUMENT_TITLE_KEYS;
    for (const key of keys) {
      const value = data[key];
      if (typeof value === 'string' && oneLine(value)) return { title: oneLine(value), key };
    }
    for (const key of TURN_LIST_KEYS) {
      const list = data[key];
      const first = Array.isArray(list) ? list.find(isObject) : undefined;
      const subject = first && typeof first.subject === 'string' ? oneLine(first.subject) : '';
      if (subject) return { title: subject };
    }
    for (const key of BODY_KEYS) {
      const value = data[key];
      const heading = typeof value === 'string' ? firstMarkdownTitle(value) : undefined;
      if (heading && !CONVERSATIONS.has(record.type)) return { title: oneLine(heading) };
    }
  }
  return { title: generatedTitle(record.type, record.eventAt) };
}

/** The title a source gets when its record names none: its type and day ("Conversation on 2026-01-01"). */
export function generatedTitle(type: string, eventAt: Date): string {
  return `${TYPE_LABELS[type] ?? humanize(type)} on ${eventAt.toISOString().slice(0, 10)}`;
}

function isShortScalar(value: unknown): boolean {
  const text = scalarText(value);
  return text !== undefined && !text.includes('\n') && text.length <= SHORT_FIELD_CHARS;
}

/** A value with no special meaning, under its key: prose as sections, lists as bullets, the rest as lines. */
function genericSegments(key: string, value: unknown): Segment[] {
  const heading = humanize(key);
  if (typeof value === 'string') return sectionsFromMarkdown(value, BODY_KEYS.has(key) ? null : heading);
  if (Array.isArray(value) && value.every((v) => scalarText(v) !== undefined)) {
    return value.length ? segmentsOf('section', readableText(value), { heading }) : [];
  }
  return groupLines('field', flattenLines(value, key), heading);
}

function conversationSegments(key: string, value: unknown, speaker: string | undefined, subject: string | null): Segment[] | undefined {
  if ((TURN_LIST_KEYS as readonly string[]).includes(key)) {
    const turns = turnsFromValue(value);
    if (turns) return turns;
  }
  if (BODY_KEYS.has(key) && typeof value === 'string') {
    if (!speaker) {
      const turns = turnsFromText(value);
      if (turns) return turns;
    }
    return segmentsOf(speaker ? 'turn' : 'text', value, { speaker: speaker ?? null, heading: subject });
  }
  return undefined;
}

function documentSegments(key: string, value: unknown): Segment[] | undefined {
  if (key === 'sections' && Array.isArray(value)) return sectionsFromList(value);
  if (DOCUMENT_TURN_KEYS.has(key)) return turnsFromValue(value);
  return undefined;
}

function spreadsheetSegments(key: string, value: unknown, data: PlainObject): Segment[] | undefined {
  if ((key === 'sheets' || key === 'tabs') && Array.isArray(value)) return rowsFromSheets(value);
  if ((ROW_LIST_KEYS as readonly string[]).includes(key) && Array.isArray(value)) {
    const columns = data.columns ?? data.headers ?? data.header ?? data.fields ?? data.column_names;
    return rowsSegments(value, columns, null);
  }
  return undefined;
}

const COLUMN_KEYS = new Set(['columns', 'headers', 'header', 'fields', 'column_names']);

/** The ordered content of a record: every top-level value of `data` is rendered, none dropped. */
export function segmentsOfRecord(record: SourceRecord, titleKey?: string): Segment[] {
  const data = record.data;
  if (!isObject(data)) return groupLines('field', flattenLines(data, 'data'), null);
  const used = new Set<string>(titleKey ? [titleKey] : []);
  const conversation = CONVERSATIONS.has(record.type);
  let speaker: string | undefined;
  let subject: string | null = null;
  if (conversation) {
    const speakerKey = MESSAGE_SPEAKER_KEYS.find((k) => personName(data[k]));
    if (speakerKey) {
      speaker = personName(data[speakerKey]);
      used.add(speakerKey);
    }
    if (typeof data.subject === 'string' && titleKey !== 'subject') {
      subject = oneLine(data.subject);
      used.add('subject');
    }
  }
  const rowsRead = record.type === 'spreadsheet' && ROW_LIST_KEYS.some((k) => Array.isArray(data[k]));
  const details: string[] = [];
  const body: Segment[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (used.has(key) || value === undefined) continue;
    if (rowsRead && COLUMN_KEYS.has(key)) continue;
    const special = conversation
      ? conversationSegments(key, value, speaker, subject)
      : DOCUMENTS.has(record.type)
        ? documentSegments(key, value)
        : record.type === 'spreadsheet'
          ? spreadsheetSegments(key, value, data)
          : undefined;
    if (special) body.push(...special);
    else if (isShortScalar(value) && !BODY_KEYS.has(key)) details.push(`${humanize(key)}: ${scalarText(value)}`);
    else body.push(...genericSegments(key, value));
  }
  // A sender with no message text still belongs to the source.
  if (speaker && !body.some((s) => s.speaker === speaker)) details.unshift(`From: ${speaker}`);
  if (subject && !body.some((s) => s.heading === subject)) details.unshift(`Subject: ${subject}`);
  return [...groupLines('field', details, 'Details'), ...body];
}

function participantsOf(record: SourceRecord, segments: Segment[]): unknown[] {
  if (record.participants && record.participants.length) return record.participants;
  const speakers = [...new Set(segments.map((s) => s.speaker).filter((s): s is string => !!s))];
  return speakers.slice(0, 5000).map((name) => ({ id: name, role: 'unknown', name }));
}

/** Everything a source is, from its record. Pure: no I/O, deterministic. */
export function buildSource(record: SourceRecord): SourceDraft {
  if (!(record.eventAt instanceof Date) || Number.isNaN(record.eventAt.getTime())) {
    throw new SourceBuildError(`record ${record.id} has no valid event time`);
  }
  const data = isObject(record.data) ? record.data : undefined;
  const { title, key } = titleOf(record, data);
  const segments = segmentsOfRecord(record, key);
  return {
    recordId: record.id,
    workspaceId: record.workspaceId,
    productId: record.productId,
    projectIds: record.projectIds,
    type: record.type,
    nature: record.nature,
    title,
    occurredAt: record.eventAt,
    participants: participantsOf(record, segments),
    tags: record.tags,
    threadId: record.threadId,
    segments,
  };
}
