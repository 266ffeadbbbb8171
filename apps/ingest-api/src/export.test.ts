import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from './test/harness';

// Issue 28 item 4: a workspace's evidence as NDJSON, streamed and resumable.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await plant(h, h.a, 'Globex', 150);
  await plant(h, h.b, 'Initech', 3);
});
afterAll(() => h.close());

/** Sources (with segments), a signal type, signals, one opportunity and a shaping note with two versions. */
async function plant(h: Harness, t: Tenant, company: string, sources: number) {
  const q = (sql: string, values: unknown[]) => h.t.pool.query(sql, values);
  const ws = t.workspaceId;
  for (let i = 0; i < sources; i++) {
    const id = `src_${ws}_${String(i).padStart(4, '0')}`;
    await q(`INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, participants, status, segment_count)
             VALUES ($1, $2, $3, $4, 'call', 'evidence', $5, now(), $6, 'ready', 2)`,
    [id, ws, t.productId, [t.projectId], `Call ${i} with ${company}`, JSON.stringify([{ id: `ana@${company}.test`, role: 'external' }])]);
    await q(`INSERT INTO source_segments (source_id, position, kind, speaker, text) VALUES ($1, 0, 'turn', 'Ana', $2), ($1, 1, 'turn', 'Bo', 'Noted.')`,
      [id, `${company} needs faster CSV exports`]);
  }
  await q(`INSERT INTO signal_types (id, workspace_id, key, name, description) VALUES ($1, $2, 'pain_point', 'Pain point', 'x')`, [`sty_${ws}`, ws]);
  for (let i = 0; i < 3; i++) {
    await q(`INSERT INTO signals (id, workspace_id, product_id, source_id, type_id, title, content, content_hash, who_said_it, company, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, 'Slow export', $6, $1, 'Ana', $7, now(), now())`,
    [`sig_${ws}_${i}`, ws, t.productId, `src_${ws}_0000`, `sty_${ws}`, `${company} waits minutes for CSV`, company]);
  }
  await q(`INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at)
           VALUES ($1, $2, $3, 'Slow CSV export', '3 signals', 'pain_point', 3, 1, now(), now())`, [`opp_${ws}`, ws, t.productId]);
  await q(`INSERT INTO opportunity_signals (opportunity_id, signal_id) SELECT $1, id FROM signals WHERE workspace_id = $2`, [`opp_${ws}`, ws]);
  await q(`INSERT INTO shaping_notes (id, workspace_id, product_id, title, content, version, status) VALUES ($1, $2, $3, 'Faster exports', $4, 2, 'draft')`,
    [`note_${ws}`, ws, t.productId, `# Why\n${company} asked`]);
  await q(`INSERT INTO shaping_note_versions (note_id, version, title, content) VALUES ($1, 1, 'Exports', 'first'), ($1, 2, 'Faster exports', 'second')`, [`note_${ws}`]);
  await q(`INSERT INTO companies (id, workspace_id, external_id, name, domains, arr, segment, renewal_date, attributes, created_at, updated_at)
           VALUES ($1, $2, 'crm-1', $3, $4, 1200.50, 'smb', '2027-01-31', '{"tier": 2}', now(), now())`, [`cmp_${ws}`, ws, company, [`${company.toLowerCase()}.test`]]);
  await q(`INSERT INTO people (id, workspace_id, external_id, email, name, company_id, created_at, updated_at)
           VALUES ($1, $2, 'p-1', $3, 'Ana', $4, now(), now()), ($5, $2, 'p-2', NULL, 'Bo', NULL, now(), now())`,
  [`per_${ws}_1`, ws, `ana@${company.toLowerCase()}.test`, `cmp_${ws}`, `per_${ws}_2`]);
  await q('UPDATE signals SET company_id = $2 WHERE id = $1', [`sig_${ws}_0`, `cmp_${ws}`]);
}

async function exportOf(key: string | undefined, after?: string) {
  const res = await fetch(`${h.base}/api/v1/export${after === undefined ? '' : `?after=${encodeURIComponent(after)}`}`, { headers: key ? { 'x-api-key': key } : {} });
  const text = await res.text();
  return { res, text, lines: res.ok ? text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, any>) : [] };
}

describe('GET /api/v1/export', () => {
  it('streams every source, signal, opportunity, shaping note, company and person of the workspace as NDJSON, then an end line with the counts', async () => {
    const { res, lines, text } = await exportOf(h.a.readKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(text.endsWith('\n')).toBe(true);
    const kinds = lines.map((l) => l.kind);
    expect(kinds).toEqual([...Array(150).fill('source'), 'signal', 'signal', 'signal', 'opportunity', 'shaping_note', 'company', 'person', 'person', 'end']);
    // Each kind in id order, each row once (across the 100-row pages).
    const sourceIds = lines.filter((l) => l.kind === 'source').map((l) => l.source.id);
    expect(sourceIds).toEqual([...sourceIds].sort());
    expect(new Set(sourceIds).size).toBe(150);
    expect(lines[0]!.source).toMatchObject({
      title: 'Call 0 with Globex', type: 'call', project_ids: [h.a.projectId], participants: [{ id: 'ana@Globex.test', role: 'external' }],
      segments: [{ position: 0, speaker: 'Ana', text: 'Globex needs faster CSV exports' }, { position: 1, speaker: 'Bo', text: 'Noted.' }],
      attachments: [],
    });
    expect(lines.find((l) => l.kind === 'signal')!.signal).toMatchObject({ type: 'pain_point', content: 'Globex waits minutes for CSV', opportunity_id: `opp_${h.a.workspaceId}` });
    // written before quotes were checked (issue 48): the check's fields are there, null
    expect(lines.find((l) => l.kind === 'signal')!.signal).toMatchObject({ quote: null, quotes: null, quotes_verified: null });
    expect(lines.find((l) => l.kind === 'opportunity')!.opportunity.signal_ids).toHaveLength(3);
    expect(lines.find((l) => l.kind === 'shaping_note')!.shaping_note.versions.map((v: { content: string }) => v.content)).toEqual(['first', 'second']);
    expect(lines.find((l) => l.kind === 'company')!.company).toEqual({
      id: `cmp_${h.a.workspaceId}`, external_id: 'crm-1', name: 'Globex', domains: ['globex.test'], arr: 1200.5, plan: null, segment: 'smb', stage: null,
      renewal_date: '2027-01-31', attributes: { tier: 2 }, created_at: expect.any(String), updated_at: expect.any(String),
    });
    // a signal names the company it resolved to by its external_id
    expect(lines.filter((l) => l.kind === 'signal').map((l) => [l.signal.company, l.signal.company_external_id])).toEqual([['Globex', 'crm-1'], ['Globex', null], ['Globex', null]]);
    expect(lines.filter((l) => l.kind === 'person').map((l) => [l.person.external_id, l.person.email, l.person.company_external_id]))
      .toEqual([['p-1', 'ana@globex.test', 'crm-1'], ['p-2', null, null]]);
    expect(lines.at(-1)).toEqual({ kind: 'end', complete: true, resumed: false, counts: { source: 150, signal: 3, opportunity: 1, shaping_note: 1, company: 1, person: 2 } });
    // Nothing of the other workspace.
    expect(text).not.toContain('Initech');
  });

  it('resumes after the last line received, wherever it is', async () => {
    const { lines: all } = await exportOf(h.a.readKey);
    for (const at of [0, 99, 149, 151, 153, 154, 155, 156]) {
      const { lines } = await exportOf(h.a.readKey, all[at]!.cursor);
      expect(lines.slice(0, -1)).toEqual(all.slice(at + 1, -1));
      expect(lines.at(-1)).toMatchObject({ kind: 'end', resumed: true });
    }
  });

  it('a cursor of another workspace resumes within the caller\'s own workspace only', async () => {
    const { lines: other } = await exportOf(h.b.readKey);
    const { text } = await exportOf(h.a.readKey, other[0]!.cursor);
    expect(text).not.toContain('Initech');
  });

  it('refuses a broken cursor by name, a key without api:read, and no key', async () => {
    const broken = await exportOf(h.a.readKey, 'not-a-cursor');
    expect(broken.res.status).toBe(400);
    expect(JSON.parse(broken.text)).toEqual({ error: 'INVALID_REQUEST', message: expect.stringMatching(/^Query parameter "after": not a cursor of an export line/) });
    const writeOnly = await exportOf(h.a.writeKey);
    expect(writeOnly.res.status).toBe(403);
    expect(writeOnly.text).toMatch(/api:read/);
    expect((await exportOf(undefined)).res.status).toBe(401);
  });
});
