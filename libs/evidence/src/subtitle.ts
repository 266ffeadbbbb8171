/** An opportunity's subtitle: its counts and its distinctive words. */
export function subtitleOf(signals: number, companies: number, keywords: readonly string[]): string {
  const counts = `${signals} signal${signals === 1 ? '' : 's'}${companies ? ` from ${companies} compan${companies === 1 ? 'y' : 'ies'}` : ''}`;
  return keywords.length ? `${counts} · ${keywords.join(', ')}` : counts;
}
