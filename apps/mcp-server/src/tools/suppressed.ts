import { suppressedMessage, type SuppressedHit } from '@loupe/erasure';

/**
 * The tool error for a write naming a person erased from the workspace (add_source, add_signals,
 * update_signals): what was refused, the field and the suppression (never the person), and what to do.
 */
export function refusedForSuppression(what: string, hit: SuppressedHit): string {
  return `${what}: ${suppressedMessage(hit)}. Leave them out, or ask the workspace's owner to lift the suppression (account pages, Privacy).`;
}
