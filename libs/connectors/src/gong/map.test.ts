import { itemOfRecord, validateItems } from '@loupe/records';
import { describe, expect, it } from 'vitest';
import { callRecord, externalPeople } from './map';
import { callSchema, monologueSchema, partySchema } from './shapes';

const routing = { productId: 'prod_1', projectId: 'proj_1' };
const call = callSchema.parse({
  metaData: { id: '7782342274025937895', title: 'Globex renewal', started: '2026-02-18T02:30:00-07:00', duration: 1805.4, direction: 'Conference', scope: 'External', url: 'https://app.gong.io/call?id=7782342274025937895' },
  media: { audioUrl: 'https://cdn.gong.io/audio/abc.mp3?sig=1', videoUrl: 'https://cdn.gong.io/video/abc.mp4?sig=1' },
});
const parties = [
  partySchema.parse({ id: '1', speakerId: '11', name: 'Riley Rep', emailAddress: 'Riley@Acme.example', affiliation: 'Internal', userId: '234' }),
  partySchema.parse({ id: '2', speakerId: '22', name: 'Ana', emailAddress: 'ana@globex.example', affiliation: 'External' }),
  partySchema.parse({ id: '3', speakerId: '33', name: null, emailAddress: 'odd@@address', affiliation: 'External' }),
  partySchema.parse({ id: '4', name: 'Dial-in', affiliation: 'Unknown' }),
];
const transcript = [
  monologueSchema.parse({ speakerId: '11', topic: 'Call Setup', sentences: [{ start: 1000, end: 2000, text: 'Thanks for joining.' }, { start: 2100, end: 4000, text: 'How is the export?' }] }),
  monologueSchema.parse({ speakerId: '22', topic: null, sentences: [{ start: 4500, end: 9000, text: 'Exporting to Excel takes forever.' }] }),
  monologueSchema.parse({ speakerId: '33', sentences: [{ start: 9500, end: 9900, text: 'Same here.' }] }),
  monologueSchema.parse({ speakerId: '99', sentences: [{ start: 10_000, end: 10_500, text: '  ' }] }),
];

describe('Gong calls as records and people', () => {
  it('makes one call_transcription the record schema accepts: turns with speakers and times, parties by affiliation, the recording', () => {
    const record = callRecord(routing, call, parties, transcript);
    const { accepted, errors } = validateItems([{ ...itemOfRecord(record), index: 0 }]);
    expect(errors).toEqual([]);
    expect(accepted).toHaveLength(1);
    expect(record).toMatchObject({
      _type: 'call_transcription', _event_at: '2026-02-18T09:30:00.000Z', _vendor_ids: { gong: '7782342274025937895' }, _nature: 'evidence',
      _thread_id: 'gong:call:7782342274025937895',
      _participants: [
        { id: 'riley@acme.example', role: 'internal', name: 'Riley Rep', email: 'riley@acme.example', type: 'workspace_member' },
        { id: 'ana@globex.example', role: 'external', name: 'Ana', email: 'ana@globex.example', type: 'contact' },
        { id: 'gong:party:3', role: 'external', type: 'contact' },
        { id: 'gong:party:4', role: 'unknown', name: 'Dial-in', type: 'unknown' },
      ],
      _attachments: [{ type: 'audio', vendor_url: 'https://cdn.gong.io/audio/abc.mp3?sig=1', filename: 'gong-call-7782342274025937895.mp3' }],
    });
    expect(record.data).toMatchObject({ title: 'Globex renewal', duration_seconds: 1805, transcript_available: true, started: '2026-02-18T09:30:00.000Z' });
    expect(record.data.transcript).toEqual([
      { speaker: 'Riley Rep', speaker_id: '11', topic: 'Call Setup', start_ms: 1000, end_ms: 4000, text: 'Thanks for joining. How is the export?' },
      { speaker: 'Ana', speaker_id: '22', start_ms: 4500, end_ms: 9000, text: 'Exporting to Excel takes forever.' },
      { speaker: 'Speaker 33', speaker_id: '33', start_ms: 9500, end_ms: 9900, text: 'Same here.' },
    ]);
  });

  it('gives no attachment without a media URL (or with one that is no URL), and says when Gong had no transcript', () => {
    const bare = callRecord(routing, { ...call, media: null }, [], undefined);
    expect(bare._attachments).toBeUndefined();
    expect(bare.data).toMatchObject({ transcript_available: false, transcript: [] });
    const hostile = callRecord(routing, { ...call, media: { audioUrl: 'javascript:alert(1)', videoUrl: null } }, [], []);
    expect(hostile._attachments).toBeUndefined();
    const video = callRecord(routing, { ...call, media: { audioUrl: null, videoUrl: 'https://cdn.gong.io/v.mp4' } }, [], []);
    expect(video._attachments).toEqual([{ type: 'video', vendor_url: 'https://cdn.gong.io/v.mp4', filename: 'gong-call-7782342274025937895.mp4' }]);
    expect(callRecord(routing, callSchema.parse({ metaData: { id: 5, started: '2026-01-01T00:00:00Z' } }), [], undefined).data.title).toBe('Gong call 5');
  });

  it('makes people of external parties with a usable email only, once each', () => {
    expect(externalPeople([...parties, parties[1]!])).toEqual([{ external_id: 'gong:person:ana@globex.example', email: 'ana@globex.example', name: 'Ana' }]);
  });

  it('keeps words PostgreSQL cannot store out of the record (NUL, half a surrogate pair) instead of losing the call', () => {
    const record = callRecord(routing, callSchema.parse({ metaData: { id: '8', title: 'Nul\u0000 call \uD83D', started: '2026-01-01T00:00:00Z' } }),
      [partySchema.parse({ id: '1', speakerId: '1', name: `${'x'.repeat(255)}\uD83D\uDE00`, affiliation: 'External' })],
      [monologueSchema.parse({ speakerId: '1', topic: '\u0000', sentences: [{ start: 0, end: 1, text: 'It \uDE00 fails\u0000' }] })]);
    expect(validateItems([{ ...itemOfRecord(record), index: 0 }]).errors).toEqual([]);
    expect(record.data.title).toBe('Nul call \uFFFD');
    expect(record._participants![0]!.name).toBe(`${'x'.repeat(255)}\uFFFD`);
    expect(record.data.transcript).toEqual([{ speaker: `${'x'.repeat(255)}\uD83D\uDE00`, speaker_id: '1', start_ms: 0, end_ms: 1, text: 'It \uFFFD fails' }]);
  });

  it('refuses a call without a start or with an id that is no Gong id, naming the field', () => {
    const noStart = callSchema.safeParse({ metaData: { id: '1', started: 'yesterday' } });
    expect(noStart.success).toBe(false);
    expect(noStart.error!.issues[0]).toMatchObject({ path: ['metaData', 'started'], message: 'is not a date and time' });
    expect(callSchema.safeParse({ metaData: { id: '../../x', started: '2026-01-01T00:00:00Z' } }).success).toBe(false);
  });
});
