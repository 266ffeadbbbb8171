import { segmentsOf } from './text';
import type { Segment } from './types';

const MAX_START_MS = 2_147_483_647;

/** `1:02:03`, `02:03`, `02:03.5` → milliseconds. */
export function clockToMs(value: string): number | null {
  const m = /^(?:(\d{1,3}):)?(\d{1,2}):(\d{2})(?:[.,](\d{1,3}))?$/.exec(value.trim());
  if (!m) return null;
  const [, h = '0', min = '0', s = '0', frac = ''] = m;
  const ms = ((Number(h) * 60 + Number(min)) * 60 + Number(s)) * 1000 + Number(frac.padEnd(3, '0') || 0);
  return ms <= MAX_START_MS ? ms : null;
}

// Optional [timestamp], speaker (optionally **bold**, optionally followed by a (timestamp)), colon, text.
const SPEAKER_LINE =
  /^\s*(?:\[?(?<t1>\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?)\]?\s*(?:-\s*)?)?(?:\*\*)?(?<speaker>[\p{L}][\p{L}\p{N} .'’&@()_-]{0,58}?)(?:\s*[[(](?<t2>\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?)[\])])?(?:\*\*)?\s*:(?:\*\*)?\s+(?<text>\S.*)$/u;

interface SpeakerLine {
  speaker: string;
  text: string;
  startMs: number | null;
}

export function parseSpeakerLine(line: string): SpeakerLine | undefined {
  const m = SPEAKER_LINE.exec(line);
  if (!m?.groups) return undefined;
  const speaker = m.groups.speaker!.trim();
  // "https://…" and "Note: …"-style prose are not speakers.
  if (/^(https?|mailto|ftp)$/i.test(speaker) || speaker.split(/\s+/).length > 6) return undefined;
  const stamp = m.groups.t1 ?? m.groups.t2;
  return { speaker, text: m.groups.text!, startMs: stamp ? clockToMs(stamp) : null };
}

/**
 * A transcript written as `Speaker: text` lines, as turns; lines without a speaker continue
 * the turn before them. Undefined when fewer than two lines name a speaker (then it is prose).
 */
export function turnsFromText(text: string): Segment[] | undefined {
  const lines = text.split(/\r?\n/);
  const parsed = lines.map(parseSpeakerLine);
  if (parsed.filter(Boolean).length < 2) return undefined;
  const turns: { speaker: string | null; text: string; startMs: number | null }[] = [];
  lines.forEach((line, i) => {
    const p = parsed[i];
    if (p) turns.push({ speaker: p.speaker, text: p.text, startMs: p.startMs });
    else if (turns.length) turns[turns.length - 1]!.text += `\n${line}`;
    else if (line.trim()) turns.push({ speaker: null, text: line, startMs: null });
  });
  return turns.flatMap((t) => segmentsOf(t.speaker ? 'turn' : 'text', t.text, { speaker: t.speaker, startMs: t.startMs }));
}
