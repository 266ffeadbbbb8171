import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { quantize, startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PoolClient } from 'pg';
import { createSemanticSearch, embedPendingSources, pendingSemanticSources, refreshSearchDocuments, searchSources, type SemanticSearch } from './index';
import { pendingCountStatement } from './semantic';

const FILLER = [
  'Thanks for the demo yesterday, the team enjoyed it', 'Can we move our quarterly review to Thursday afternoon?', 'The dashboard colours are hard to read on a projector',
  'We would like a German translation of the interface', 'Our contract renews in March; please send the new terms', 'The search box ignores accents in customer names',
  'Please add two more seats to our plan', 'Notifications arrive twice on the iPad', 'Is there an API to create projects automatically?',
  'The calendar integration shows meetings in the wrong time zone', 'We love the new timeline view', 'Printing an invoice cuts off the last line',
  'Our auditors need a log of who changed each record', 'The tutorial videos are out of date', 'Dark mode would help our night shift',
  'Can guests comment without an account?', 'The weekly email digest is too long to read', 'Tags disappear after renaming a folder',
  'We need data stored in the European Union', 'Keyboard shortcuts conflict with our screen reader', 'Archived projects still count against our quota',
  'The import from Trello lost all attachments', 'Please let admins reset two-factor authentication', 'Charts do not load behind our proxy',
  'Customer support answered within minutes, great job', 'The mobile web page zooms in on every form field', 'We want to filter reports by region',
  'Uploading a video larger than one gigabyte fails', 'The onboarding checklist skipped the billing step', 'Comments lose their formatting when pasted',
];

describe('semantic search of sources', () => {
  let t: TestDatabase;
  let semantics: SemanticsThread;
  const ws = newId('ws');
  const other = newId('ws');
  let day = 0;

  async function source(workspaceId: string, title: string, turns: Array<[string, string]>, product = 'prod_1'): Promise<string> {
    const id = newId('src');
    await t.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, participants, tags, status, segment_count)
       VALUES ($1, $2, $3, '{}', 'email', 'evidence', $4, $5, '[]', '{}', 'ready', $6)`,
      [id, workspaceId, product, title, new Date(Date.UTC(2026, 0, 1) + day++ * 86_400_000), turns.length],
    );
    await t.pool.query(
      `INSERT INTO source_segments (source_id, position, kind, speaker, text)
       SELECT $1, x.position, 'turn', x.speaker, x.text FROM json_to_recordset($2::json) AS x(position int, speaker text, text text)`,
      [id, JSON.stringify(turns.map(([speaker, text], position) => ({ position, speaker, text })))],
    );
    await refreshSearchDocuments(t.pool, [id]);
    return id;
  }

  const ids = {} as Record<'okta' | 'export' | 'crash' | 'otherOkta', string>;
  beforeAll(async () => {
    t = await createTestDatabase();
    semantics = startSemanticsThread();
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Acme'), ($2, 'Other')", [ws, other]);
    ids.okta = await source(ws, 'Re: cannot get in', [['Ann', 'Since Monday our staff cannot log in through Okta, the login page keeps looping back']]);
    ids.export = await source(ws, 'Reports', [['Bo', 'Exporting the monthly report to Excel takes twenty minutes every time']]);
    ids.crash = await source(ws, 'Mobile', [['Cy', 'The Android app crashes whenever someone uploads a photo']], 'prod_2');
    ids.otherOkta = await source(other, 'Okta problem', [['Zed', 'Nobody can log in with Okta, the sign in fails for every employee']]);
    // A workspace says many different things: the common component is estimated from them.
    for (const [i, text] of FILLER.entries()) await source(ws, `Note ${i}`, [['Al', text]]);
  });
  afterAll(async () => {
    await semantics.close();
    await t.close();
  });

  /** Searches until the index is filled and `expected` comes first. */
  async function expectFirstOnceFilled(search: SemanticSearch, query: string, expected: string) {
    let found = await search.search(ws, query, {}, 3);
    for (let i = 0; (found.indexing || found.hits[0]?.sourceId !== expected) && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = await search.search(ws, query, {}, 3);
    }
    expect(found.hits[0]!.sourceId).toBe(expected);
  }

  /** What an erasure's slice does: the source's vector dropped, in a transaction left open. */
  async function dropVectorInOpenTransaction(client: PoolClient, sourceId: string) {
    await client.query('BEGIN');
    await client.query("UPDATE source_semantics SET pending = true, vector = NULL, version = NULL, seq = nextval('source_semantic_seq') WHERE source_id = $1", [sourceId]);
  }

  it('embeds the waiting sources of a workspace and no other', async () => {
    expect(await pendingSemanticSources(t.pool, ws)).toBe(33);
    expect(await embedPendingSources({ pool: t.pool, semantics }, ws)).toBe(33);
    expect(await pendingSemanticSources(t.pool, ws)).toBe(0);
    expect(await pendingSemanticSources(t.pool, other)).toBe(1);
    expect(await embedPendingSources({ pool: t.pool, semantics }, ws)).toBe(0);
  });

  it('embeds a source without the title Loupe made from its type and day, and with a title its record gave', async () => {
    const made = await source(ws, 'to be replaced', [['Fay', 'The invoice shows the wrong VAT number']]);
    const { rows } = await t.pool.query<{ occurred_at: Date }>('SELECT occurred_at FROM sources WHERE id = $1', [made]);
    // The title buildSource gives an email whose record names none.
    await t.pool.query('UPDATE sources SET title = $2 WHERE id = $1', [made, `Email on ${rows[0]!.occurred_at.toISOString().slice(0, 10)}`]);
    const named = await source(ws, 'VAT number', [['Gus', 'Please fix the VAT number on our invoices']]);
    const texts: string[] = [];
    const watching: SemanticsThread = {
      ...semantics,
      run: (async (op: 'embed', args: { texts: string[] }, transfer?: ArrayBuffer[]) => {
        if (op === 'embed') texts.push(...args.texts);
        return semantics.run(op, args as never, transfer);
      }) as SemanticsThread['run'],
      describe: () => semantics.describe(),
    };
    await embedPendingSources({ pool: t.pool, semantics: watching }, ws);
    const vat = texts.filter((text) => text.includes('VAT')).sort();
    expect(vat).toEqual(['The invoice shows the wrong VAT number', 'VAT number\nPlease fix the VAT number on our invoices']);
    await t.pool.query('DELETE FROM sources WHERE id = ANY($1)', [[made, named]]);
  });

  it('counts the waiting sources through the pending index even when the statistics still say most are waiting', async () => {
    // A bulk load as autovacuum last saw it: 30,000 sources waiting, analysed; then every one embedded.
    const bulk = newId('ws');
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Bulk')", [bulk]);
    await t.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, participants, tags, status, segment_count)
       SELECT $1 || '_' || i, $1, 'prod_1', '{}', 'email', 'evidence', 'Bulk ' || i, now(), '[]', '{}', 'ready', 0 FROM generate_series(1, 30000) i`,
      [bulk],
    );
    await t.pool.query('ANALYZE source_semantics');
    await t.pool.query('UPDATE source_semantics SET pending = false WHERE workspace_id = $1', [bulk]);
    const plan = JSON.stringify((await t.pool.query(`EXPLAIN (FORMAT JSON) ${pendingCountStatement(1_000)}`, [bulk])).rows[0]['QUERY PLAN']);
    expect(plan).toContain('source_semantics_pending_idx');
    expect(plan).not.toContain('Seq Scan');
    expect(await pendingSemanticSources(t.pool, bulk, 1_000)).toBe(0);
  });

  it('finds by meaning what the words alone miss, fused with the lexical ranking, inside the workspace only', async () => {
    const search = createSemanticSearch({ pool: t.pool, semantics });
    await embedPendingSources({ pool: t.pool, semantics }, other);
    // The first search fills the index in the background; it is complete a moment later.
    let found = await search.search(ws, 'single sign-on does not work', {}, 5);
    for (let i = 0; found.indexing && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = await search.search(ws, 'single sign-on does not work', {}, 5);
    }
    expect(found.indexing).toBe(false);
    expect(found.hits[0]!.sourceId).toBe(ids.okta);
    expect(found.hits.map((h) => h.sourceId)).not.toContain(ids.otherOkta);

    const lexicalOnly = await searchSources(t.pool, ws, { query: 'single sign-on' });
    expect(lexicalOnly.items.map((i) => i.id)).not.toContain(ids.okta);
    const fused = await searchSources(t.pool, ws, { query: 'single sign-on', extraRankings: [found.hits] });
    expect(fused.items[0]!.id).toBe(ids.okta);
    expect(fused.matched).toBe('none');
    expect(fused.items[0]!.excerpts![0]!.position).toBe(0);

    // A query of common words alone has nothing to match lexically: answered by its meaning when it has one.
    await expect(searchSources(t.pool, ws, { query: "why can't we?" })).rejects.toThrow(/no word to search for/);
    const common = await search.search(ws, "why can't we?", {}, 3);
    expect(common.hits.length).toBeGreaterThan(0);
    expect((await searchSources(t.pool, ws, { query: "why can't we?", extraRankings: [common.hits] })).items.map((i) => i.id)).toEqual(common.hits.map((h) => h.sourceId));

    const slow = await search.search(ws, 'downloading the report is slow', {}, 3);
    expect(slow.hits[0]!.sourceId).toBe(ids.export);
    const filtered = await search.search(ws, 'the phone application keeps crashing', { productId: 'prod_1' }, 5);
    expect(filtered.hits.map((h) => h.sourceId)).not.toContain(ids.crash);
    expect((await search.search(ws, 'the phone application keeps crashing', { productId: 'prod_2' }, 5)).hits.map((h) => h.sourceId)).toEqual([ids.crash]);
  });

  it('ranks the first candidates again by meaning with feedback and word by word, from each one\'s title and opening', async () => {
    const search = createSemanticSearch({ pool: t.pool, semantics });
    const arrived = await source(ws, 'Card', [['Di', 'Hello there'], ['Di', 'My new card has still not arrived in the post']]);
    const working = await source(ws, 'Card trouble', [['Ed', 'My new card is not working in shops']]);
    let found = await search.search(ws, 'new card not arrived', {}, 10);
    for (let i = 0; (found.indexing || !found.hits.some((h) => h.sourceId === arrived)) && i < 60; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = await search.search(ws, 'new card not arrived', {}, 10);
    }
    const seen: Array<{ id: string; text: string }> = [];
    const reranker = search.reranker(ws);
    const page = await searchSources(t.pool, ws, {
      query: 'new card not arrived', extraRankings: [found.hits],
      rerank: async (query, candidates) => (seen.push(...candidates), reranker(query, candidates)),
    });
    // The text of each candidate: its title and, found by the whole source or by meaning, its opening segments.
    expect(seen.find((c) => c.id === arrived)!.text).toBe('Card\nHello there\nMy new card has still not arrived in the post');
    expect(seen.find((c) => c.id === working)!.text).toBe('Card trouble\nMy new card is not working in shops');
    expect(page.items.map((i) => i.id)).toEqual(expect.arrayContaining([arrived, working]));
    const plain = await searchSources(t.pool, ws, { query: 'new card not arrived', extraRankings: [found.hits] });
    expect(new Set(page.items.map((i) => i.id))).toEqual(new Set(plain.items.map((i) => i.id)));
    // The scores the stage gives: the words of "arrived" answer the query better than those of "working".
    const scores = await reranker('new card not arrived', [seen.find((c) => c.id === arrived)!, seen.find((c) => c.id === working)!]);
    expect(scores.words![0]).toBeGreaterThan(scores.words![1]!);
    expect(scores.feedback).toHaveLength(2);
    // The thread runs the second pass in the same message: the first pass's order, and the feedback again in it.
    expect([...scores.again!.order].sort()).toEqual([0, 1]);
    expect(scores.again!.feedback).toHaveLength(2);
    await t.pool.query('DELETE FROM sources WHERE id = ANY($1)', [[arrived, working]]);
  });

  it('sees a source written after the index was filled within a second, and refills after the thread is restarted', async () => {
    const search = createSemanticSearch({ pool: t.pool, semantics });
    let found = await search.search(ws, 'invoice paid twice', {}, 3);
    for (let i = 0; found.indexing && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = await search.search(ws, 'invoice paid twice', {}, 3);
    }
    const billing = await source(ws, 'Billing', [['Dee', 'We were charged two times for the same invoice this month']]);
    await embedPendingSources({ pool: t.pool, semantics }, ws);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await search.search(ws, 'invoice paid twice', {}, 3)).hits[0]!.sourceId).toBe(billing);

    await semantics.close(); // the next request starts a new thread, without the index
    let again = await search.search(ws, 'invoice paid twice', {}, 3);
    for (let i = 0; (again.indexing || !again.hits.length) && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await search.search(ws, 'invoice paid twice', {}, 3);
    }
    expect(again.hits[0]!.sourceId).toBe(billing);
  });

  it('keeps a searched index fresh in the background, so a search does not wait to read what was written meanwhile (issue 46)', async () => {
    const ops: Array<{ op: string; searching: boolean }> = [];
    let searching = false;
    const watched: SemanticsThread = {
      ...semantics,
      run: ((op: 'embed', args: never, transfer?: ArrayBuffer[]) => (ops.push({ op, searching }), semantics.run(op, args, transfer))) as SemanticsThread['run'],
    };
    const search = createSemanticSearch({ pool: t.pool, semantics: watched });
    const ask = async (query: string) => {
      searching = true;
      try {
        return await search.search(ws, query, {}, 3);
      } finally {
        searching = false;
      }
    };
    let found = await ask('the spreadsheet import skips empty rows');
    for (let i = 0; found.indexing && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = await ask('the spreadsheet import skips empty rows');
    }
    const rows = await source(ws, 'Import', [['Ida', 'Importing our spreadsheet silently drops every row with an empty cell']]);
    await embedPendingSources({ pool: t.pool, semantics }, ws);
    ops.length = 0;
    // Nobody searches for longer than a search would wait before catching up itself.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(ops.filter((o) => o.op === 'index-upsert').length).toBeGreaterThan(0);
    ops.length = 0;
    expect((await ask('the spreadsheet import skips empty rows')).hits[0]!.sourceId).toBe(rows);
    expect(ops.filter((o) => o.op === 'index-upsert')).toEqual([]);
    // Stopped: nothing more is read in the background.
    search.close();
    await new Promise((r) => setTimeout(r, 100));
    ops.length = 0;
    await source(ws, 'Import again', [['Ida', 'The spreadsheet import still drops rows with an empty cell']]);
    await embedPendingSources({ pool: t.pool, semantics }, ws);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(ops).toEqual([]);
  });

  it('drops a deleted source from a filled index within a second: the row is gone, its entry in source_deletions says so', async () => {
    const search = createSemanticSearch({ pool: t.pool, semantics });
    const refund = await source(ws, 'Refund', [['Eve', 'We want our money back for the unused licences of last year']]);
    await embedPendingSources({ pool: t.pool, semantics }, ws);
    let found = await search.search(ws, 'asking for a refund of licences', {}, 3);
    for (let i = 0; (found.indexing || found.hits[0]?.sourceId !== refund) && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = await search.search(ws, 'asking for a refund of licences', {}, 3);
    }
    expect(found.hits[0]!.sourceId).toBe(refund);
    // What libs/lifecycle's deleteEvidence does in one transaction.
    await t.pool.query('DELETE FROM sources WHERE id = $1', [refund]);
    await t.pool.query('INSERT INTO source_deletions (workspace_id, source_id) VALUES ($1, $2)', [ws, refund]);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await search.search(ws, 'asking for a refund of licences', {}, 3)).hits.map((h) => h.sourceId)).not.toContain(refund);
    // Another instance filling its index from the start never holds it either.
    const thread = startSemanticsThread();
    const fresh = createSemanticSearch({ pool: t.pool, semantics: thread });
    let filled = await fresh.search(ws, 'asking for a refund of licences', {}, 3);
    for (let i = 0; filled.indexing && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      filled = await fresh.search(ws, 'asking for a refund of licences', {}, 3);
    }
    expect(filled.hits.map((h) => h.sourceId)).not.toContain(refund);
    await thread.close();
  });

  it('fills an index again from the start when it was not brought up to date for longer than the deletion log is kept', async () => {
    // Not searched for longer than its background refresh lasts: the refill is what keeps it right.
    const search = createSemanticSearch({ pool: t.pool, semantics, refillAfterMs: 1_500, keepFreshForMs: 100 });
    const gone = await source(ws, 'Invoices', [['Flo', 'Our invoices in PDF have the wrong VAT number printed on them']]);
    await embedPendingSources({ pool: t.pool, semantics }, ws);
    let found = await search.search(ws, 'wrong VAT number printed on PDF invoices', {}, 3);
    for (let i = 0; (found.indexing || !found.hits.some((h) => h.sourceId === gone)) && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = await search.search(ws, 'wrong VAT number printed on PDF invoices', {}, 3);
    }
    expect(found.hits.map((h) => h.sourceId)).toContain(gone);
    // Deleted while no one searched, and its log entry pruned since.
    await t.pool.query('DELETE FROM sources WHERE id = $1', [gone]);
    await new Promise((r) => setTimeout(r, 1_600));
    let after = await search.search(ws, 'wrong VAT number printed on PDF invoices', {}, 3);
    for (let i = 0; after.indexing && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await search.search(ws, 'wrong VAT number printed on PDF invoices', {}, 3);
    }
    expect(after.hits.map((h) => h.sourceId)).not.toContain(gone);
  });

  it('a source redacted while its vector is computed keeps waiting, and is embedded from its new text, never the old one (issue 41)', async () => {
    const id = await source(ws, 'Call with Ana Lopez', [['Ana Lopez', 'Ana Lopez says the Excel export times out for her team']]);
    const redact = () => t.pool.query(
      `WITH s AS (UPDATE sources SET title = 'Call with [erased]' WHERE id = $1),
            g AS (UPDATE source_segments SET speaker = '[erased]', text = '[erased]' WHERE source_id = $1)
       UPDATE source_semantics SET pending = true, vector = NULL, version = NULL, seq = nextval('source_semantic_seq') WHERE source_id = $1`, [id]);
    let redacted = false;
    // The erasure lands between the read of the text and the write of its vector.
    const racing: SemanticsThread = {
      ...semantics,
      run: (async (op: 'embed', args: never, transfer?: ArrayBuffer[]) => {
        const out = await semantics.run(op, args, transfer);
        if (op === 'embed' && !redacted) {
          redacted = true;
          await redact();
        }
        return out;
      }) as SemanticsThread['run'],
      describe: () => semantics.describe(),
    };
    await embedPendingSources({ pool: t.pool, semantics: racing }, ws);
    const row = async () => (await t.pool.query<{ pending: boolean; vector: Buffer | null }>('SELECT pending, vector FROM source_semantics WHERE source_id = $1', [id])).rows[0]!;
    expect(redacted).toBe(true);
    expect(await row()).toEqual({ pending: true, vector: null });
    await embedPendingSources({ pool: t.pool, semantics }, ws);
    const { vectors, dims, denseDims } = await semantics.run('embed', { texts: ['Call with [erased]\n[erased]'] });
    expect(dims).toBeGreaterThan(0);
    expect((await row()).vector).toEqual(Buffer.from(quantize(vectors.subarray(0, denseDims))));
  });

  it('reads a change committed by a transaction that was still open when the index read past later ones (issue 41)', async () => {
    const search = createSemanticSearch({ pool: t.pool, semantics });
    const query = 'the mobile app logs everyone out after each update';
    const held = await source(ws, 'Logged out', [['Gus', 'Since the last update the mobile app logs everyone out every morning']]);
    await embedPendingSources({ pool: t.pool, semantics }, ws);
    await expectFirstOnceFilled(search, query, held);
    // An erasure's slice takes its sequence value and its transaction stays open...
    const client = await t.pool.connect();
    try {
      await dropVectorInOpenTransaction(client, held);
      // ...while another source is embedded, committed and read into the index.
      const later = await source(ws, 'Seats', [['Hal', 'Please add three more seats to our subscription before Monday']]);
      await embedPendingSources({ pool: t.pool, semantics }, ws);
      await new Promise((r) => setTimeout(r, 1_100));
      expect((await search.search(ws, 'add more seats to the subscription', {}, 3)).hits[0]!.sourceId).toBe(later);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await search.search(ws, query, {}, 3)).hits.map((h) => h.sourceId)).not.toContain(held);
  });

  it('reads each change once while a transaction stays open, and that transaction\'s own writes once it commits (issue 46)', async () => {
    const read: string[] = [];
    const watched: SemanticsThread = {
      ...semantics,
      run: ((op: 'index-upsert', args: { items: Array<{ id: string }>; removed: string[] }, transfer?: ArrayBuffer[]) => {
        if (op === 'index-upsert') read.push(...args.items.map((i) => i.id), ...args.removed);
        return semantics.run(op, args as never, transfer);
      }) as SemanticsThread['run'],
    };
    const search = createSemanticSearch({ pool: t.pool, semantics: watched });
    const query = 'invoices are emailed to the wrong billing contact';
    const held = await source(ws, 'Billing contact', [['Ivy', 'Our invoices keep going to the old billing contact instead of the new one']]);
    await embedPendingSources({ pool: t.pool, semantics }, ws);
    await expectFirstOnceFilled(search, query, held);
    read.length = 0;
    const client = await t.pool.connect();
    try {
      await dropVectorInOpenTransaction(client, held);
      const later = await source(ws, 'Exports', [['Jo', 'The CSV export of our contacts is missing the phone numbers column']]);
      await embedPendingSources({ pool: t.pool, semantics }, ws);
      // Refreshed several times (each search after a second, and in the background) while the transaction stays open.
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 1_100));
        expect((await search.search(ws, 'contacts export lacks phone numbers', {}, 3)).hits[0]!.sourceId).toBe(later);
      }
      expect(read.filter((id) => id === later)).toEqual([later]);
      expect(read).not.toContain(held);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await search.search(ws, query, {}, 3)).hits.map((h) => h.sourceId)).not.toContain(held);
    expect(read.filter((id) => id === held)).toEqual([held]);
    search.close();
  });

  it('fills and refreshes an index a page at a time: what every page read stays in it (issue 46)', async () => {
    const search = createSemanticSearch({ pool: t.pool, semantics, loadPage: 3 });
    const okta = 'our staff cannot log in through Okta';
    let found = await search.search(ws, okta, {}, 3);
    for (let i = 0; found.indexing && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = await search.search(ws, okta, {}, 3);
    }
    expect(found.hits[0]!.sourceId).toBe(ids.okta);
    const client = await t.pool.connect();
    try {
      // A transaction takes its id and stays open while seven sources are written and read, three at a time.
      await client.query('BEGIN');
      await client.query('SELECT pg_current_xact_id()');
      const written: string[] = [];
      for (const [i, text] of ['The billing page times out for large accounts', 'Our webhook retries flood the endpoint', 'Search results ignore the date filter',
        'The Slack alerts arrive an hour late', 'Exported PDFs lose their page numbers', 'Two-factor codes expire before they arrive by text', 'Bulk editing tags freezes the browser'].entries()) {
        written.push(await source(ws, `Paged ${i}`, [['Kim', text]]));
      }
      await embedPendingSources({ pool: t.pool, semantics }, ws);
      await new Promise((r) => setTimeout(r, 1_100));
      expect((await search.search(ws, 'webhook retries flood our endpoint', {}, 3)).hits[0]!.sourceId).toBe(written[1]);
      expect((await search.search(ws, 'bulk tag editing freezes the browser', {}, 3)).hits[0]!.sourceId).toBe(written[6]);
      expect((await search.search(ws, okta, {}, 3)).hits[0]!.sourceId).toBe(ids.okta);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    search.close();
  });
});
