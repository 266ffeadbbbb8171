import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SHAPING_STATUSES,
  ProductNotFoundError,
  ShapingNoteNotFoundError,
  ShapingValidationError,
  ShapingVersionNotFoundError,
  createShapingNote,
  getShapingNote,
  getVersion,
  listShapingNotes,
  listVersions,
  restoreVersion,
  shapingStatusDisplayName,
  updateShapingNote,
} from './index';

describe('shaping notes', () => {
  let t: TestDatabase;
  let now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const clock = { now: () => now };
  const tick = (ms = 1000) => {
    now += ms;
  };

  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  async function workspaceWithProduct(): Promise<{ ws: string; product: string }> {
    const ws = newId('ws');
    const product = newId('prod');
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [ws]);
    await t.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $1)', [product, ws]);
    return { ws, product };
  }

  async function note(ws: string, product: string, extra: Record<string, unknown> = {}) {
    return createShapingNote(t.pool, { workspaceId: ws, productId: product, title: 'Bulk export', content: '# Problem\n\nCSV only.', ...extra }, clock);
  }

  it('lists the pipeline statuses in order with their display names', () => {
    expect(SHAPING_STATUSES.map((s) => s.status)).toEqual(['ideas', 'prds', 'dev_plans', 'build_notes', 'revisions', 'ready', 'done']);
    expect(SHAPING_STATUSES.map((s) => s.displayName)).toEqual(['Ideas', 'PRDs', 'Dev Plans', 'Build Notes', 'Revisions', 'Ready', 'Done']);
    expect(shapingStatusDisplayName('dev_plans')).toBe('Dev Plans');
    expect(shapingStatusDisplayName(null)).toBeNull();
  });

  it('creates a note at version 1 and stores version 1', async () => {
    const { ws, product } = await workspaceWithProduct();
    const created = await note(ws, product, { subtitle: 'for admins', status: 'ideas', tags: ['export', 'admin'], createdByUserId: 'usr_1' });
    expect(created).toMatchObject({
      workspaceId: ws,
      productId: product,
      title: 'Bulk export',
      subtitle: 'for admins',
      content: '# Problem\n\nCSV only.',
      status: 'ideas',
      tags: ['export', 'admin'],
      version: 1,
      createdByUserId: 'usr_1',
    });
    expect(created.id).toMatch(/^shn_/);
    expect(created.createdAt.getTime()).toBe(now);
    expect(created.updatedAt.getTime()).toBe(now);
    expect(await getShapingNote(t.pool, ws, created.id)).toEqual(created);
    const versions = await listVersions(t.pool, ws, created.id);
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ noteId: created.id, version: 1, title: 'Bulk export', status: 'ideas', tags: ['export', 'admin'], createdByUserId: 'usr_1' });
    expect(versions[0]).not.toHaveProperty('content'); // lists carry no text: a note may hold 1 MB in each version
  });

  it('keeps a note without status outside the pipeline', async () => {
    const { ws, product } = await workspaceWithProduct();
    expect((await note(ws, product)).status).toBeNull();
    expect((await note(ws, product, { status: '' })).status).toBeNull();
    expect((await note(ws, product)).subtitle).toBeNull();
    expect((await note(ws, product)).tags).toEqual([]);
  });

  it("refuses a product of another workspace exactly like a missing one", async () => {
    const a = await workspaceWithProduct();
    const b = await workspaceWithProduct();
    await expect(note(a.ws, b.product)).rejects.toThrow(ProductNotFoundError);
    await expect(note(a.ws, b.product)).rejects.toThrow(/^Product not found$/);
    await expect(note(a.ws, 'prod_missing')).rejects.toThrow(/^Product not found$/);
    const { rows } = await t.pool.query('SELECT 1 FROM shaping_notes WHERE workspace_id = $1', [a.ws]);
    expect(rows).toEqual([]);
  });

  it('replaces given fields outright, keeps omitted ones and stores each update as a new version', async () => {
    const { ws, product } = await workspaceWithProduct();
    const created = await note(ws, product, { subtitle: 'sub', status: 'ideas', tags: ['a', 'b'] });
    tick();
    const v2 = await updateShapingNote(t.pool, { workspaceId: ws, noteId: created.id, status: 'prds', tags: ['c'], updatedByUserId: 'usr_2' }, clock);
    expect(v2).toMatchObject({ version: 2, title: 'Bulk export', subtitle: 'sub', content: created.content, status: 'prds', tags: ['c'] });
    expect(v2.updatedAt.getTime()).toBe(now);
    expect(v2.createdAt).toEqual(created.createdAt);
    tick();
    const v3 = await updateShapingNote(t.pool, { workspaceId: ws, noteId: created.id, content: 'new body', subtitle: '', tags: [] }, clock);
    expect(v3).toMatchObject({ version: 3, content: 'new body', subtitle: null, tags: [], status: 'prds' });
    const versions = await Promise.all((await listVersions(t.pool, ws, created.id)).map((v) => getVersion(t.pool, ws, created.id, v.version)));
    expect(versions.map((v) => [v.version, v.status, v.content, v.tags, v.createdByUserId])).toEqual([
      [1, 'ideas', created.content, ['a', 'b'], null],
      [2, 'prds', created.content, ['c'], 'usr_2'],
      [3, 'prds', 'new body', [], null],
    ]);
    expect(versions[1]!.createdAt.getTime()).toBe(v2.updatedAt.getTime());
  });

  it("removes a note from the pipeline with status ''", async () => {
    const { ws, product } = await workspaceWithProduct();
    const created = await note(ws, product, { status: 'ready' });
    const updated = await updateShapingNote(t.pool, { workspaceId: ws, noteId: created.id, status: '' }, clock);
    expect(updated.status).toBeNull();
    expect((await getShapingNote(t.pool, ws, created.id)).status).toBeNull();
    expect((await listVersions(t.pool, ws, created.id)).map((v) => v.status)).toEqual(['ready', null]);
  });

  it('gives concurrent updates consecutive versions, never the same one twice', async () => {
    const { ws, product } = await workspaceWithProduct();
    const created = await note(ws, product);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => updateShapingNote(t.pool, { workspaceId: ws, noteId: created.id, content: `edit ${i}` }, clock)),
    );
    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
    const versions = await Promise.all((await listVersions(t.pool, ws, created.id)).map((v) => getVersion(t.pool, ws, created.id, v.version)));
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    const latest = await getShapingNote(t.pool, ws, created.id);
    expect(latest.version).toBe(13);
    expect(latest.content).toBe(versions[12]!.content);
    // Each stored version is exactly what the update that made it returned.
    for (const r of results) expect(versions[r.version - 1]!.content).toBe(r.content);
  });

  it('restores an old version as a new version equal to it', async () => {
    const { ws, product } = await workspaceWithProduct();
    const created = await note(ws, product, { subtitle: 'first', status: 'ideas', tags: ['x'] });
    await updateShapingNote(t.pool, { workspaceId: ws, noteId: created.id, title: 'Renamed', subtitle: '', status: 'done', content: 'v2', tags: [] }, clock);
    tick();
    const restored = await restoreVersion(t.pool, { workspaceId: ws, noteId: created.id, version: 1, restoredByUserId: 'usr_9' }, clock);
    expect(restored).toMatchObject({ version: 3, title: 'Bulk export', subtitle: 'first', status: 'ideas', content: created.content, tags: ['x'] });
    expect(restored.updatedAt.getTime()).toBe(now);
    const versions = await Promise.all((await listVersions(t.pool, ws, created.id)).map((v) => getVersion(t.pool, ws, created.id, v.version)));
    expect(versions).toHaveLength(3);
    const pick = ({ title, subtitle, content, status, tags }: (typeof versions)[number]) => ({ title, subtitle, content, status, tags });
    expect(pick(versions[2]!)).toEqual(pick(versions[0]!));
    expect(versions[2]!.createdByUserId).toBe('usr_9');
    await expect(restoreVersion(t.pool, { workspaceId: ws, noteId: created.id, version: 4 }, clock)).rejects.toThrow(ShapingVersionNotFoundError);
    await expect(restoreVersion(t.pool, { workspaceId: ws, noteId: created.id, version: 0 }, clock)).rejects.toThrow(ShapingValidationError);
    expect((await getShapingNote(t.pool, ws, created.id)).version).toBe(3);
  });

  it("answers another workspace's note exactly like a nonexistent one, everywhere", async () => {
    const a = await workspaceWithProduct();
    const b = await workspaceWithProduct();
    const theirs = await note(b.ws, b.product);
    const message = (id: string) => `Shaping note ${id} does not exist or you are not allowed to access it`;
    for (const id of [theirs.id, 'shn_missing']) {
      const attempts = [
        () => getShapingNote(t.pool, a.ws, id),
        () => updateShapingNote(t.pool, { workspaceId: a.ws, noteId: id, title: 'stolen' }, clock),
        () => listVersions(t.pool, a.ws, id),
        () => restoreVersion(t.pool, { workspaceId: a.ws, noteId: id, version: 1 }, clock),
      ];
      for (const attempt of attempts) {
        const error = await attempt().then(() => null, (e: unknown) => e);
        expect(error).toBeInstanceOf(ShapingNoteNotFoundError);
        expect((error as Error).message).toBe(message(id));
      }
    }
    expect(await getShapingNote(t.pool, b.ws, theirs.id)).toEqual(theirs);
    expect((await listShapingNotes(t.pool, a.ws, { productId: b.product, limit: 10, offset: 0 })).total).toBe(0);
  });

  it('lists a product\'s notes newest first, paged, filtered by status, with the total', async () => {
    const { ws, product } = await workspaceWithProduct();
    const other = newId('prod');
    await t.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $1)', [other, ws]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      tick();
      ids.push((await note(ws, product, { title: `n${i}`, status: i % 2 === 0 ? 'ideas' : null })).id);
    }
    await note(ws, other);
    const page1 = await listShapingNotes(t.pool, ws, { productId: product, limit: 2, offset: 0 });
    expect(page1.total).toBe(5);
    expect(page1.items.map((n) => n.title)).toEqual(['n4', 'n3']);
    const page3 = await listShapingNotes(t.pool, ws, { productId: product, limit: 2, offset: 4 });
    expect(page3.items.map((n) => n.title)).toEqual(['n0']);
    tick();
    await updateShapingNote(t.pool, { workspaceId: ws, noteId: ids[0]!, content: 'bumped' }, clock);
    expect((await listShapingNotes(t.pool, ws, { productId: product, limit: 1, offset: 0 })).items[0]!.title).toBe('n0');
    const ideas = await listShapingNotes(t.pool, ws, { productId: product, status: 'ideas', limit: 10, offset: 0 });
    expect(ideas.total).toBe(3);
    expect(ideas.items.every((n) => n.status === 'ideas')).toBe(true);
    const outside = await listShapingNotes(t.pool, ws, { productId: product, status: null, limit: 10, offset: 0 });
    expect(outside.items.map((n) => n.title).sort()).toEqual(['n1', 'n3']);
    await expect(listShapingNotes(t.pool, ws, { productId: product, limit: 0, offset: 0 })).rejects.toThrow(/limit must be/);
    await expect(listShapingNotes(t.pool, ws, { productId: product, limit: 101, offset: 0 })).rejects.toThrow(/limit must be/);
    await expect(listShapingNotes(t.pool, ws, { productId: product, limit: 5, offset: -1 })).rejects.toThrow(/offset must be/);
    await expect(listShapingNotes(t.pool, ws, { productId: product, status: 'shipped', limit: 5, offset: 0 })).rejects.toThrow(/Unknown status/);
  });

  // Issue 24 item 1: an update that changes nothing is not a version (the tool says idempotentHint: true).
  it('writes no version when an update or a restore leaves the note as it is', async () => {
    const { ws, product } = await workspaceWithProduct();
    const created = await note(ws, product, { status: 'ideas', tags: ['a', 'b'] });
    tick();
    const same = await updateShapingNote(t.pool, { workspaceId: ws, noteId: created.id, title: ' Bulk export ', content: created.content, status: 'ideas', tags: ['a', 'b'] }, clock);
    expect(same).toMatchObject({ version: 1, unchanged: true });
    expect(same.updatedAt.getTime()).toBe(created.updatedAt.getTime());
    const changed = await updateShapingNote(t.pool, { workspaceId: ws, noteId: created.id, tags: ['b', 'a'] }, clock);
    expect(changed).toMatchObject({ version: 2, unchanged: false });
    const restored = await restoreVersion(t.pool, { workspaceId: ws, noteId: created.id, version: 1 }, clock);
    expect(restored).toMatchObject({ version: 3, unchanged: false, tags: ['a', 'b'] });
    expect(await restoreVersion(t.pool, { workspaceId: ws, noteId: created.id, version: 1 }, clock)).toMatchObject({ version: 3, unchanged: true });
    expect(await listVersions(t.pool, ws, created.id)).toHaveLength(3);
  });

  it('reads one version; another workspace\'s note or a missing version is not found', async () => {
    const { ws, product } = await workspaceWithProduct();
    const b = await workspaceWithProduct();
    const created = await note(ws, product);
    await updateShapingNote(t.pool, { workspaceId: ws, noteId: created.id, content: 'second' }, clock);
    expect(await getVersion(t.pool, ws, created.id, 1)).toMatchObject({ version: 1, content: created.content });
    expect(await getVersion(t.pool, ws, created.id, 2)).toMatchObject({ version: 2, content: 'second' });
    await expect(getVersion(t.pool, ws, created.id, 3)).rejects.toThrow(ShapingVersionNotFoundError);
    await expect(getVersion(t.pool, b.ws, created.id, 1)).rejects.toThrow(ShapingNoteNotFoundError);
  });

  it('lists by tag and by words (all of them, anywhere in title, subtitle, content or tags; % and _ are plain characters)', async () => {
    const { ws, product } = await workspaceWithProduct();
    const sso = await note(ws, product, { title: 'SAML SSO', content: 'Admins need Okta.', tags: ['Enterprise'] });
    const pct = await note(ws, product, { title: 'Pricing', content: 'Raise prices by 10% for teams.', subtitle: 'enterprise tier' });
    await note(ws, product, { title: 'Other', content: 'Nothing here.' });
    const ids = async (o: { tag?: string; query?: string }) => (await listShapingNotes(t.pool, ws, { productId: product, limit: 10, offset: 0, ...o })).items.map((n) => n.id);
    expect(await ids({ tag: 'enterprise' })).toEqual([sso.id]);
    expect((await ids({ query: 'enterprise' })).sort()).toEqual([sso.id, pct.id].sort());
    expect(await ids({ query: 'okta admins' })).toEqual([sso.id]);
    expect(await ids({ query: 'okta pricing' })).toEqual([]);
    expect(await ids({ query: '10%' })).toEqual([pct.id]);
    expect(await ids({ query: '%' })).toEqual([pct.id]);
  });

  describe('validation', () => {
    let ws: string;
    let product: string;
    let noteId: string;
    beforeAll(async () => {
      ({ ws, product } = await workspaceWithProduct());
      noteId = (await note(ws, product)).id;
    });

    async function rejection(p: Promise<unknown>): Promise<ShapingValidationError> {
      const error = await p.then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(ShapingValidationError);
      return error as ShapingValidationError;
    }

    it('checks the title: 1 to 200 characters', async () => {
      expect((await rejection(note(ws, product, { title: '' }))).message).toBe('title must not be empty');
      expect((await rejection(note(ws, product, { title: '   ' }))).field).toBe('title');
      expect((await rejection(note(ws, product, { title: 'x'.repeat(201) }))).message).toBe('title must be at most 200 characters (got 201)');
      expect((await note(ws, product, { title: 'x'.repeat(200) })).title).toHaveLength(200);
      expect((await rejection(updateShapingNote(t.pool, { workspaceId: ws, noteId, title: '' }, clock))).field).toBe('title');
    });

    it('checks the content: at most 1 MB of UTF-8', async () => {
      const error = await rejection(note(ws, product, { content: 'é'.repeat(512 * 1024 + 1) }));
      expect(error.field).toBe('content');
      expect(error.message).toMatch(/at most 1048576 bytes \(1 MB\).*got 1048578/);
      expect((await note(ws, product, { content: 'a'.repeat(1024 * 1024) })).content).toHaveLength(1024 * 1024);
      expect((await rejection(updateShapingNote(t.pool, { workspaceId: ws, noteId, content: 'a'.repeat(1024 * 1024 + 1) }, clock))).field).toBe('content');
    });

    it('checks the subtitle: at most 300 characters', async () => {
      expect((await rejection(note(ws, product, { subtitle: 's'.repeat(301) }))).message).toBe('subtitle must be at most 300 characters (got 301)');
      expect((await note(ws, product, { subtitle: 's'.repeat(300) })).subtitle).toHaveLength(300);
    });

    it('checks the tags: at most 20, each 1 to 50 characters', async () => {
      const many = Array.from({ length: 21 }, (_, i) => `t${i}`);
      expect((await rejection(note(ws, product, { tags: many }))).message).toBe('at most 20 tags are allowed (got 21)');
      expect((await rejection(note(ws, product, { tags: ['ok', 'x'.repeat(51)] }))).message).toBe('tags[1] must be at most 50 characters (got 51)');
      expect((await rejection(note(ws, product, { tags: [''] }))).field).toBe('tags[0]');
      expect((await note(ws, product, { tags: many.slice(0, 20) })).tags).toHaveLength(20);
      expect((await note(ws, product, { tags: [' a ', 'a', 'b'] })).tags).toEqual(['a', 'b']);
    });

    it('names the valid statuses when given an unknown one', async () => {
      const error = await rejection(note(ws, product, { status: 'Shipped' }));
      expect(error.field).toBe('status');
      expect(error.message).toBe('Unknown status "Shipped": use one of ideas, prds, dev_plans, build_notes, revisions, ready, done, or "" to keep the note outside the pipeline');
      await rejection(updateShapingNote(t.pool, { workspaceId: ws, noteId, status: 'PRDs' }, clock));
    });

    it('refuses an update that changes nothing and leaves the note untouched after a rejection', async () => {
      expect((await rejection(updateShapingNote(t.pool, { workspaceId: ws, noteId }, clock))).message).toMatch(/nothing to update/);
      expect((await getShapingNote(t.pool, ws, noteId)).version).toBe(1);
      expect(await listVersions(t.pool, ws, noteId)).toHaveLength(1);
    });
  });
});
