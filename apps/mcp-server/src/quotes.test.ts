import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connectClient, seedSource, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

// Issue 48: every quote an AI client writes in a signal is checked against its source.

let h: McpHarness;
let w: Workspace;
let writer: Client;
let sourceId: string;
beforeAll(async () => {
  h = await startMcpServer();
  w = await seedWorkspace(h);
  writer = await connectClient(h, { key: w.key });
  sourceId = await seedSource(h, w, {
    segments: ['Thanks for making time.', 'Honestly, exporting 12 reports every Monday takes us, um, about forty minutes.', 'Is that the CSV export?', 'Yes, and the PDF one never finishes.'],
    speakers: ['Ben Cole', 'Ana Ruiz', 'Ben Cole', 'Ana Ruiz'],
  });
});
afterAll(async () => {
  await writer?.close();
  await h.close();
});

const signal = (title: string, content: string, extra: Record<string, unknown> = {}) => ({ type: 'pain_point', title, content, who_said_it: 'Ana Ruiz', ...extra });

describe('add_signals checks quotes (issue 48)', () => {
  it('verifies a sentence quoted with other case and typographic quotes, and names the one with a changed number as not found', async () => {
    const r = await call(writer, 'add_signals', {
      source_id: sourceId,
      signals: [
        signal('Monday exports are slow', 'Ana: “EXPORTING 12 reports every Monday takes us about forty minutes.”'),
        signal('Exports take long', 'Ana said "exporting 15 reports every Monday takes us about forty minutes".'),
      ],
    });
    expect(r.isError, r.text).toBe(false);
    const [first, second] = r.data!.signals;
    expect(first).toMatchObject({ reused: false, quotes_verified: 'all', quotes: [{ text: 'EXPORTING 12 reports every Monday takes us about forty minutes.', verified: true, position: 1, speaker: 'Ana Ruiz' }] });
    expect(second).toMatchObject({ reused: false, quotes_verified: 'none', quotes: [{ text: 'exporting 15 reports every Monday takes us about forty minutes', verified: false }] });
    expect(second.quotes[0]).not.toHaveProperty('position');
    expect(r.text).toContain('Quotes: 1 of 2 found in the source.');
    expect(r.text).toMatch(new RegExp(`Not found in the source[^]*update_signals[^]*\`${second.id}\`: "exporting 15 reports`));
    expect(r.text).not.toContain(`\`${first.id}\`: "EXPORTING`);
    const { rows } = await h.pool.query('SELECT id, quotes_verified, quotes FROM signals WHERE id = ANY($1) ORDER BY id', [[first.id, second.id]]);
    expect(Object.fromEntries(rows.map((row) => [row.id, row.quotes_verified]))).toEqual({ [first.id]: 'all', [second.id]: 'none' });
  });

  it('reports a quote said by another speaker than who_said_it, checks the separate quote field, and says when there is no quote', async () => {
    const r = await call(writer, 'add_signals', {
      source_id: sourceId,
      signals: [
        signal('CSV export', 'They asked "Is that the CSV export?"'),
        signal('PDF never finishes', 'The PDF export hangs.', { quote: 'the PDF one never finishes' }),
        signal('No quote here', 'Exports are slow in general.'),
      ],
    });
    const [other, field, none] = r.data!.signals;
    expect(other).toMatchObject({ quotes_verified: 'all', quotes: [{ verified: true, position: 2, speaker: 'Ben Cole', other_speaker: true }] });
    expect(r.text).toMatch(new RegExp(`Said by someone else[^]*\`${other.id}\`: "Is that the CSV export\\?" was said by Ben Cole \\(segment 2\\)`));
    expect(field).toMatchObject({ quotes_verified: 'all', quotes: [{ text: 'the PDF one never finishes', verified: true, position: 3 }] });
    expect(none).toMatchObject({ quotes: [], quotes_verified: 'no_quote' });
  });

  it('update_signals checks the corrected quote again, and view_item shows the checks', async () => {
    const added = await call(writer, 'add_signals', { source_id: sourceId, signals: [signal('Forty minutes', 'She said “it takes about fifty minutes”.')] });
    const id = added.data!.signals[0].id;
    expect(added.data!.signals[0].quotes_verified).toBe('none');
    const fixed = await call(writer, 'update_signals', { updates: [{ id, content: 'She said “takes us about forty minutes”.' }] });
    expect(fixed.data).toEqual({ updated: [{ id, quotes_verified: 'all', quotes: [{ text: 'takes us about forty minutes', verified: true, position: 1, speaker: 'Ana Ruiz' }] }] });
    expect(fixed.text).not.toContain('Not found');
    const viewed = await call(writer, 'view_item', { item_id: id, item_type: 'signal' });
    expect(viewed.data!.item).toMatchObject({ quotes_verified: 'all', quotes: [{ verified: true, position: 1 }] });
    expect(viewed.text).toContain('verified, segment 1 (Ana Ruiz): "takes us about forty minutes"');
    const broken = await call(writer, 'update_signals', { updates: [{ id, quote: 'it never takes forty minutes' }] });
    expect(broken.data!.updated[0]).toMatchObject({ quotes_verified: 'some' });
    expect(broken.text).toContain(`\`${id}\`: "it never takes forty minutes"`);
    expect((await call(writer, 'view_item', { item_id: id, item_type: 'signal' })).text).toContain('NOT FOUND in the source: "it never takes forty minutes"');
  });
});

describe('shaping notes report their citations (issue 48)', () => {
  it('names an unknown source id and a fabricated quote in the result, and view_item shows the same', async () => {
    const content = [
      '## Problem',
      `Monday exports are slow (${sourceId}): “exporting 12 reports every Monday takes us about forty minutes”.`,
      '',
      `Ana also said "the CSV export crashes every single time" (${sourceId}).`,
      '',
      'See src_doesnotexist01 for more.',
    ].join('\n');
    const created = await call(writer, 'create_shaping_note', { title: 'Faster exports', content });
    expect(created.isError, created.text).toBe(false);
    expect(created.data!.citations).toMatchObject({
      sources: [sourceId], signals: [], unknown_ids: ['src_doesnotexist01'], quotes_verified: 1,
      quotes_not_found: ['the CSV export crashes every single time'],
      quotes: [{ text: 'exporting 12 reports every Monday takes us about forty minutes', verified: true, source_id: sourceId, position: 1 }, { verified: false }],
    });
    expect(created.text).toMatch(/\*\*Unknown ids\*\* \(no source or signal of this workspace\): `src_doesnotexist01`/);
    expect(created.text).toMatch(/\*\*Quotes not found\*\*[^]*- "the CSV export crashes every single time"/);
    const viewed = await call(writer, 'view_item', { item_id: created.data!.id, item_type: 'shaping_note' });
    expect(viewed.data!.item.citations).toEqual(created.data!.citations);
    expect(viewed.text).toContain('quotes: 1 of 2 found in their cited sources');
    const fixed = await call(writer, 'update_shaping_note', { note_id: created.data!.id, content: content.replace('the CSV export crashes every single time', 'the PDF one never finishes').replace('See src_doesnotexist01 for more.', '') });
    expect(fixed.data!.citations).toMatchObject({ unknown_ids: [], quotes_verified: 2, quotes_not_found: [] });
    expect(fixed.text).not.toMatch(/Unknown ids|Quotes not found/);
  });

  it('checks a quote against the source of a cited signal', async () => {
    const added = await call(writer, 'add_signals', { source_id: sourceId, signals: [signal('PDF hangs', 'Ana: "the PDF one never finishes"')] });
    const sig = added.data!.signals[0].id;
    const note = await call(writer, 'create_shaping_note', { title: 'PDF export', content: `> **Ana:** the PDF one never finishes — Ana Ruiz (${sig})\n\n> the PDF one always finishes (${sig})` });
    expect(note.data!.citations).toMatchObject({ sources: [], signals: [sig], unknown_ids: [], quotes_verified: 1, quotes_not_found: ['the PDF one always finishes'] });
  });
});
