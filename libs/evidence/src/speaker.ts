/**
 * The participant of its source a signal's speaker is, when the signal names them but gives no
 * participant id: an assistant often writes who said it as the name it read ("Ana Ruiz"), while the
 * source's participants carry the id and email that resolve to a person and a company.
 */
interface Participant {
  id?: unknown;
  name?: unknown;
  email?: unknown;
}

const same = (a: unknown, b: string) => typeof a === 'string' && a.trim().toLowerCase() === b;

/** The id of the one participant whose name, id or email is `whoSaidIt` (case aside); none when zero or several are. */
export function participantNamed(participants: unknown, whoSaidIt: string | null | undefined): string | undefined {
  const who = whoSaidIt?.trim().toLowerCase();
  if (!who || !Array.isArray(participants)) return undefined;
  const matches = (participants as Participant[]).filter((p) => p && typeof p.id === 'string' && (same(p.name, who) || same(p.id, who) || same(p.email, who)));
  const ids = new Set(matches.map((p) => p.id as string));
  return ids.size === 1 ? [...ids][0] : undefined;
}
