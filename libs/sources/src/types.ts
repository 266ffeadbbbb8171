/** What a source is made from: an ingested record, its `data` already parsed. */
export interface SourceRecord {
  id: string;
  workspaceId: string;
  productId: string;
  projectIds: string[];
  type: string;
  nature: string;
  eventAt: Date;
  threadId: string | null;
  participants: unknown[] | null;
  tags: string[];
  data: unknown;
}

export type SegmentKind =
  /** One speaker's turn in a call, chat or email exchange. */
  | 'turn'
  /** A titled part of a document or meeting notes. */
  | 'section'
  /** Rows of a spreadsheet. */
  | 'rows'
  /** Values of a shape we do not recognise, as `path: value` lines. */
  | 'field'
  /** Text with no speaker and no heading. */
  | 'text';

export interface Segment {
  kind: SegmentKind;
  speaker: string | null;
  heading: string | null;
  text: string;
  /** Offset into the recording, when the data gives one. */
  startMs: number | null;
}

export interface SourceDraft {
  recordId: string;
  workspaceId: string;
  productId: string;
  projectIds: string[];
  type: string;
  nature: string;
  title: string;
  occurredAt: Date;
  participants: unknown[];
  tags: string[];
  threadId: string | null;
  segments: Segment[];
}
