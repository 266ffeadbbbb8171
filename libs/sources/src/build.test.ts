import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSource, MAX_SEGMENT_CHARS, splitText, type Segment, type SourceRecord } from './index';

function record(type: string, data: unknown, extra: Partial<SourceRecord> = {}): SourceRecord {
  return {
    id: 'rec_1',
    workspaceId: 'ws_1',
    productId: 'prod_1',
    projectIds: ['proj_1'],
    type,
    nature: 'evidence',
    eventAt: new Date('2026-01-02T10:11:12Z'),
    threadId: null,
    participants: null,
    tags: [],
    data,
    ...extra,
  };
}

const brief = (segments: Segment[]) =>
  segments.map((s) => ({ kind: s.kind, speaker: s.speaker, heading: s.heading, text: s.text, startMs: s.startMs }));

describe('turning records into sources', () => {
  it('reads speaker turns from a transcript list, with start offsets', () => {
    const draft = buildSource(
      record('call', {
        transcript: [
          { speaker: 'Alice', text: 'We lose an hour a day on exports.', start: 1.5 },
          { speaker_name: 'Bob', content: 'Since when?', start_ms: 4200 },
          { name: 'Alice', body: 'Since the March release.', start_time: '00:01:05' },
        ],
      }),
    );
    expect(draft.title).toBe('Call on 2026-01-02');
    expect(brief(draft.segments)).toEqual([
      { kind: 'turn', speaker: 'Alice', heading: null, text: 'We lose an hour a day on exports.', startMs: 1500 },
      { kind: 'turn', speaker: 'Bob', heading: null, text: 'Since when?', startMs: 4200 },
      { kind: 'turn', speaker: 'Alice', heading: null, text: 'Since the March release.', startMs: 65_000 },
    ]);
    expect(draft.participants).toEqual([
      { id: 'Alice', role: 'unknown', name: 'Alice' },
      { id: 'Bob', role: 'unknown', name: 'Bob' },
    ]);
  });

  it('splits a plain transcript into "Speaker: text" turns, continuation lines included', () => {
    const draft = buildSource(
      record('call_transcription', {
        transcript: '[00:00:03] Alice: Can you hear me?\nBob: Yes.\nLoud and clear.\n**Alice (00:01:00):** Great, let us start.',
      }),
    );
    expect(brief(draft.segments)).toEqual([
      { kind: 'turn', speaker: 'Alice', heading: null, text: 'Can you hear me?', startMs: 3000 },
      { kind: 'turn', speaker: 'Bob', heading: null, text: 'Yes.\nLoud and clear.', startMs: null },
      { kind: 'turn', speaker: 'Alice', heading: null, text: 'Great, let us start.', startMs: 60_000 },
    ]);
  });

  it('keeps prose that only looks like one speaker line as text', () => {
    const draft = buildSource(record('conversation', { text: 'Note: the customer called twice.\nNo answer.' }));
    expect(brief(draft.segments)).toEqual([
      { kind: 'text', speaker: null, heading: null, text: 'Note: the customer called twice.\nNo answer.', startMs: null },
    ]);
  });

  it('reads chat messages with author objects and content parts', () => {
    const draft = buildSource(
      record('conversation', {
        channel: 'support',
        messages: [
          { author: { name: 'Carol', email: 'carol@acme.test' }, body: 'Export to CSV fails.' },
          { from: 'Agent', content: [{ type: 'text', text: 'Looking into it.' }] },
          { user: 'Carol', message: { text: 'Thanks!' } },
        ],
      }),
    );
    expect(brief(draft.segments)).toEqual([
      { kind: 'field', speaker: null, heading: 'Details', text: 'Channel: support', startMs: null },
      { kind: 'turn', speaker: 'Carol <carol@acme.test>', heading: null, text: 'Export to CSV fails.', startMs: null },
      { kind: 'turn', speaker: 'Agent', heading: null, text: 'Looking into it.', startMs: null },
      { kind: 'turn', speaker: 'Carol', heading: null, text: 'Thanks!', startMs: null },
    ]);
  });

  it('reads a single email: subject as title, sender as speaker, other fields kept', () => {
    const draft = buildSource(
      record('email', { subject: 'Re: SSO pricing', from: { name: 'Dan', email: 'dan@acme.test' }, to: ['sales@us.test'], body: 'We need SSO.\n\nThanks' }),
    );
    expect(draft.title).toBe('Re: SSO pricing');
    expect(brief(draft.segments)).toEqual([
      { kind: 'section', speaker: null, heading: 'To', text: '- sales@us.test', startMs: null },
      { kind: 'turn', speaker: 'Dan <dan@acme.test>', heading: null, text: 'We need SSO.\n\nThanks', startMs: null },
    ]);
  });

  it('reads an email thread, stripping HTML bodies, titled by the first subject', () => {
    const draft = buildSource(
      record('email_thread', {
        emails: [
          { subject: 'Renewal', from: 'ann@acme.test', body_html: '<p>Hello<br>team &amp; friends</p><script>x()</script>' },
          { from: 'bo@us.test', text: 'Hi Ann' },
        ],
      }),
    );
    expect(draft.title).toBe('Renewal');
    expect(brief(draft.segments)).toEqual([
      { kind: 'turn', speaker: 'ann@acme.test', heading: 'Renewal', text: 'Hello\nteam & friends', startMs: null },
      { kind: 'turn', speaker: 'bo@us.test', heading: null, text: 'Hi Ann', startMs: null },
    ]);
  });

  it('splits meeting notes into sections at markdown headings and keeps lists', () => {
    const draft = buildSource(
      record('meeting_notes', {
        title: 'Weekly sync',
        date: '2026-01-02',
        notes: 'Opening remarks\n# Agenda\n- exports\n- SSO\n## Decisions\nShip batch export',
        action_items: ['Alice: write the PRD', 'Bob: call Acme'],
      }),
    );
    expect(draft.title).toBe('Weekly sync');
    expect(brief(draft.segments)).toEqual([
      { kind: 'field', speaker: null, heading: 'Details', text: 'Date: 2026-01-02', startMs: null },
      { kind: 'section', speaker: null, heading: 'Notes', text: 'Opening remarks', startMs: null },
      { kind: 'section', speaker: null, heading: 'Agenda', text: '- exports\n- SSO', startMs: null },
      { kind: 'section', speaker: null, heading: 'Decisions', text: 'Ship batch export', startMs: null },
      { kind: 'section', speaker: null, heading: 'Action items', text: '- Alice: write the PRD\n- Bob: call Acme', startMs: null },
    ]);
  });

  it('reads a document body, its H1 as title, ignoring headings inside code fences', () => {
    const draft = buildSource(record('document', { content: '# Onboarding\nIntro\n## Step 1\n```\n# not a heading\n```\n## Step 2\nDone' }));
    expect(draft.title).toBe('Onboarding');
    expect(draft.segments.map((s) => [s.heading, s.text])).toEqual([
      ['Onboarding', 'Intro'],
      ['Step 1', '```\n# not a heading\n```'],
      ['Step 2', 'Done'],
    ]);
  });

  it('reads a sections list', () => {
    const draft = buildSource(record('document', { sections: [{ heading: 'Problem', content: 'Slow exports' }, { title: 'Idea', text: 'Batch them' }] }));
    expect(draft.segments.map((s) => [s.kind, s.heading, s.text])).toEqual([
      ['section', 'Problem', 'Slow exports'],
      ['section', 'Idea', 'Batch them'],
    ]);
  });

  it('reads spreadsheet rows with declared columns, a header row, or object rows, per sheet', () => {
    const declared = buildSource(record('spreadsheet', { name: 'Survey.xlsx', columns: ['Question', 'Answer'], rows: [['Why?', 'Speed'], ['Who?', 'Ops']] }));
    expect(declared.title).toBe('Survey.xlsx');
    expect(brief(declared.segments)).toEqual([
      { kind: 'rows', speaker: null, heading: null, text: 'Row 1: Question: Why? | Answer: Speed\nRow 2: Question: Who? | Answer: Ops', startMs: null },
    ]);
    const sheets = buildSource(
      record('spreadsheet', { sheets: [{ name: 'Scores', rows: [['Name', 'Score'], ['A', 1]] }, { name: 'Notes', rows: [{ note: 'late' }] }] }),
    );
    expect(sheets.segments.map((s) => [s.heading, s.text])).toEqual([
      ['Scores', 'Row 1: Name: A | Score: 1'],
      ['Notes', 'Row 1: note: late'],
    ]);
  });

  it('falls back to readable key: value lines for any other shape', () => {
    const draft = buildSource(record('document', { weird: { nested: [1, { x: 'y' }] }, count: 5, ok: true, none: null }));
    expect(brief(draft.segments)).toEqual([
      { kind: 'field', speaker: null, heading: 'Details', text: 'Count: 5\nOk: true\nNone: null', startMs: null },
      { kind: 'field', speaker: null, heading: 'Weird', text: 'weird.nested[0]: 1\nweird.nested[1].x: y', startMs: null },
    ]);
  });

  it('keeps the record routing, the record participants and the event time', () => {
    const participants = [{ id: 'u1', role: 'external', name: 'Eve' }];
    const draft = buildSource(record('message', { text: 'hi' }, { participants, tags: ['vip'], threadId: 't-1' }));
    expect(draft).toMatchObject({
      recordId: 'rec_1',
      workspaceId: 'ws_1',
      productId: 'prod_1',
      projectIds: ['proj_1'],
      nature: 'evidence',
      participants,
      tags: ['vip'],
      threadId: 't-1',
      occurredAt: new Date('2026-01-02T10:11:12Z'),
    });
  });

  it('splits long text into segments of bounded size without losing a word', () => {
    const words = Array.from({ length: 6000 }, (_, i) => `word${i}`);
    const text = words.join(' ');
    const pieces = splitText(text);
    expect(pieces.length).toBeGreaterThan(10);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(MAX_SEGMENT_CHARS);
    expect(pieces.join(' ').split(' ')).toEqual(words);
    const draft = buildSource(record('call', { transcript: [{ speaker: 'Al', text, start: 2 }] }));
    expect(draft.segments.every((s) => s.speaker === 'Al')).toBe(true);
    expect(draft.segments[0]!.startMs).toBe(2000);
    expect(draft.segments[1]!.startMs).toBeNull();
  });

  it('prefers paragraph breaks when splitting and never splits a surrogate pair', () => {
    const paragraph = 'a'.repeat(3000);
    expect(splitText(`${paragraph}\n\n${paragraph}`)).toEqual([paragraph, paragraph]);
    const emoji = '😀'.repeat(3000);
    for (const piece of splitText(emoji)) expect(piece.isWellFormed()).toBe(true);
    expect(splitText(emoji).join('')).toBe(emoji);
  });

  it('removes characters PostgreSQL cannot store', () => {
    const draft = buildSource(record('message', { text: 'bad\u0000byte and lone \ud800 half' }));
    expect(draft.segments[0]!.text).toBe('bad\uFFFDbyte and lone \uFFFD half');
  });

  it('loses no value of an unrecognised shape', () => {
    const leaf = fc.oneof(fc.stringMatching(/^[a-z0-9 ]{1,60}$/), fc.integer(), fc.boolean());
    const key = fc.stringMatching(/^k_[a-z0-9]{1,8}$/);
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(fc.dictionary(key, tree, { minKeys: 1, maxKeys: 6 }), (data) => {
        const draft = buildSource(record('document', data));
        const haystack = draft.segments.map((s) => `${s.heading ?? ''} ${s.text}`).join(' ').replace(/\s+/g, '');
        const leaves: string[] = [];
        const walk = (v: unknown) => {
          if (Array.isArray(v)) v.forEach(walk);
          else if (v && typeof v === 'object') Object.values(v).forEach(walk);
          else leaves.push(String(v).replace(/\s+/g, ''));
        };
        walk(data);
        for (const l of leaves) expect(haystack).toContain(l);
      }),
      { numRuns: 200 },
    );
  });
});
