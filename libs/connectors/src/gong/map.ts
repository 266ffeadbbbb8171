import { emailSchema, LIMITS, participantSchema, type AttachmentInput, type IngestRecordInput, type Participant, type PersonInput } from '@loupe/records';
import type { Routing } from '../connector';
import type { GongCall, GongMonologue, GongParty } from './shapes';

/** A call's id is Gong's own (unique across Gong, up to 20 digits): re-reading the call is a duplicate, never a second record. */
export const callVendorId = (callId: string) => callId;
export const personExternalId = (email: string) => `gong:person:${email}`;

const AFFILIATION_ROLE: Record<string, Participant['role']> = { internal: 'internal', external: 'external', unknown: 'unknown' };
const AFFILIATION_TYPE: Record<string, NonNullable<Participant['type']>> = { internal: 'workspace_member', external: 'contact', unknown: 'unknown' };

/** The email the record schema takes, or none: an address it would refuse must not cost the whole call. */
function recordEmail(value: string | null | undefined): string | undefined {
  const email = value?.trim().toLowerCase();
  return email && participantSchema.shape.email.safeParse(email).success ? email : undefined;
}

/**
 * Text PostgreSQL can store: Gong's words as they are, less NUL characters, and with an unpaired UTF-16 surrogate
 * (half an emoji cut off) as U+FFFD; the record schema refuses a record with either, which would cost the whole call.
 */
export function storable(value: string): string {
  return value.replace(/\u0000/g, '').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
const cleanText = (value: string | null | undefined) => (value == null ? undefined : storable(value).trim() || undefined);
/** At most `max` UTF-16 units, without leaving half a surrogate pair at the cut. */
const cut = (value: string, max: number) => storable(value.slice(0, max));
const idText = (value: string | number | null | undefined) => (value == null ? undefined : storable(String(value)) || undefined);
const affiliationOf = (party: GongParty) => party.affiliation?.trim().toLowerCase() ?? 'unknown';

/** A party as a participant: Gong's affiliation (Internal, External, Unknown) is its role. */
export function participantOf(party: GongParty, index: number): Participant {
  const email = recordEmail(party.emailAddress);
  const affiliation = affiliationOf(party);
  const name = cleanText(party.name);
  const fallbackId = idText(party.id) ?? idText(party.speakerId) ?? String(index + 1);
  return {
    id: cut(email ?? `gong:party:${fallbackId}`, 256),
    role: AFFILIATION_ROLE[affiliation] ?? 'unknown',
    ...(name ? { name: cut(name, 256) } : {}),
    ...(email ? { email } : {}),
    type: AFFILIATION_TYPE[affiliation] ?? 'unknown',
  };
}

/** Who said it, as the transcript shows it: the party's name, else its email, else Gong's speaker id. */
function speakerName(party: GongParty | undefined, speakerId: string | undefined): string {
  return cleanText(party?.name) || recordEmail(party?.emailAddress) || (speakerId ? `Speaker ${speakerId}` : 'Unknown speaker');
}

/** The recording, when Gong gave its URL (it does only when media was asked for and the token may read it): audio, else video. */
function recordingOf(call: GongCall): AttachmentInput | undefined {
  const audio = call.media?.audioUrl?.trim();
  const video = call.media?.videoUrl?.trim();
  const url = audio || video;
  if (!url || !/^https?:\/\//i.test(url) || url.length > 2048) return undefined;
  try {
    new URL(url);
  } catch {
    return undefined;
  }
  return { type: audio ? 'audio' : 'video', vendor_url: url, filename: `gong-call-${call.metaData.id}.${audio ? 'mp3' : 'mp4'}` };
}

const iso = (s: string) => new Date(s).toISOString();

/**
 * One Gong call as one `call_transcription` record: its monologues as speaker turns (`data.transcript`, each with
 * `speaker`, `text`, `start_ms` and `end_ms` from the call's start, as the source builder reads turns), its parties as
 * participants, its recording as an attachment when Gong gave one. `_event_at` is the call's start, so the same call
 * read again is a duplicate.
 */
export function callRecord(routing: Routing, call: GongCall, parties: GongParty[], transcript: GongMonologue[] | undefined): IngestRecordInput {
  const meta = call.metaData;
  const bySpeaker = new Map<string, GongParty>();
  for (const p of parties) {
    const speakerId = idText(p.speakerId);
    if (speakerId && !bySpeaker.has(speakerId)) bySpeaker.set(speakerId, p);
  }
  const participants = new Map<string, Participant>();
  parties.forEach((p, i) => {
    const participant = participantOf(p, i);
    if (!participants.has(participant.id)) participants.set(participant.id, participant);
  });
  const turns = (transcript ?? []).flatMap((m) => {
    const sentences = m.sentences.map((s) => ({ ...s, text: cleanText(s.text) ?? '' })).filter((s) => s.text);
    if (!sentences.length) return [];
    const speakerId = idText(m.speakerId);
    const first = sentences[0]!;
    const last = sentences[sentences.length - 1]!;
    return [{
      speaker: speakerName(speakerId ? bySpeaker.get(speakerId) : undefined, speakerId),
      ...(speakerId ? { speaker_id: speakerId } : {}),
      ...(cleanText(m.topic) ? { topic: cleanText(m.topic) } : {}),
      ...(first.start != null ? { start_ms: Math.round(first.start) } : {}),
      ...(last.end != null ? { end_ms: Math.round(last.end) } : {}),
      text: sentences.map((s) => s.text).join(' '),
    }];
  });
  const recording = recordingOf(call);
  const title = cleanText(meta.title);
  return {
    _type: 'call_transcription',
    _schema_version: '1.0.0',
    _event_at: iso(meta.started),
    _vendor_ids: { gong: callVendorId(meta.id) },
    _product_id: routing.productId,
    _project_ids: [routing.projectId],
    _nature: 'evidence',
    _thread_id: `gong:call:${meta.id}`,
    _participants: [...participants.values()].slice(0, LIMITS.participantsPerRecord),
    ...(recording ? { _attachments: [recording] } : {}),
    data: {
      title: title || `Gong call ${meta.id}`,
      started: iso(meta.started),
      ...(meta.scheduled ? { scheduled: iso(meta.scheduled) } : {}),
      ...(meta.duration != null ? { duration_seconds: Math.round(meta.duration) } : {}),
      ...(cleanText(meta.direction) ? { direction: cleanText(meta.direction) } : {}),
      ...(cleanText(meta.scope) ? { scope: cleanText(meta.scope) } : {}),
      ...(cleanText(meta.system) ? { system: cleanText(meta.system) } : {}),
      ...(cleanText(meta.language) ? { language: cleanText(meta.language) } : {}),
      ...(cleanText(meta.purpose) ? { purpose: cleanText(meta.purpose) } : {}),
      ...(cleanText(meta.url) ? { gong_url: cleanText(meta.url) } : {}),
      transcript_available: transcript !== undefined,
      transcript: turns,
    },
  };
}

/** External parties with a usable email as people (the team's own are not people of the directory); their company follows from the domain. */
export function externalPeople(parties: GongParty[]): PersonInput[] {
  const out = new Map<string, PersonInput>();
  for (const party of parties) {
    if (affiliationOf(party) !== 'external') continue;
    const email = emailSchema.safeParse(party.emailAddress?.trim().toLowerCase() ?? '');
    if (!email.success || out.has(email.data) || personExternalId(email.data).length > 256) continue;
    const name = cleanText(party.name);
    out.set(email.data, { external_id: personExternalId(email.data), email: email.data, name: name ? cut(name, 256) : null });
  }
  return [...out.values()];
}
