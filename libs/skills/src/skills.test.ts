import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SkillError,
  SkillNameTakenError,
  SkillNotFoundError,
  SkillValidationError,
  builtInSkills,
  createWorkspaceSkill,
  deleteWorkspaceSkill,
  findSkills,
  loadSkillsFromDirectory,
  readSkills,
  updateWorkspaceSkill,
} from './index';

const BUILT_IN = ['customer-research', 'extract-signals', 'prioritise-by-impact', 'shaping', 'summarize-conversation', 'weekly-evidence-digest', 'write-prd'];
const TOOLS = ['get_products', 'find_sources', 'read_source', 'add_source', 'add_signals', 'update_signals', 'get_opportunities', 'view_item', 'list_shaping_notes', 'create_shaping_note', 'update_shaping_note'];

describe('built-in skills', () => {
  it('loads the seven built-in skills with frontmatter, bodies of 300 to 900 words and their references', () => {
    const skills = builtInSkills();
    expect([...skills.keys()]).toEqual(BUILT_IN);
    const used = new Set<string>();
    for (const skill of skills.values()) {
      expect(skill.title.length).toBeGreaterThan(5);
      expect(skill.description).toMatch(/^Use when .+\.$/);
      expect(skill.body).not.toMatch(/^---/);
      const words = skill.body.split(/\s+/).filter(Boolean).length;
      expect(words, skill.name).toBeGreaterThanOrEqual(300);
      expect(words, skill.name).toBeLessThanOrEqual(900);
      for (const tool of TOOLS) if (skill.body.includes(tool)) used.add(tool);
    }
    // Between them the skills teach every tool they name.
    expect([...used].sort()).toEqual([...TOOLS].sort());
    expect(skills.get('extract-signals')!.references.map((r) => r.name)).toEqual(['signal-quality-checklist']);
    expect(skills.get('extract-signals')!.references[0]!.body).toMatch(/^# Signal quality checklist/);
    expect(skills.get('shaping')!.body).toMatch(/ideas.*prds.*dev_plans.*build_notes.*revisions.*ready.*done/s);
    expect(builtInSkills()).toBe(skills); // read from disk once
  });

  describe('validation at load', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-skills-'));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    async function load(files: Record<string, string>) {
      const d = await mkdtemp(path.join(dir, 'case-'));
      for (const [name, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(d, name)), { recursive: true });
        await writeFile(path.join(d, name), text);
      }
      return () => loadSkillsFromDirectory(d);
    }

    it('reads frontmatter, quoted values and references', async () => {
      const run = await load({
        'a-skill.md': '---\nname: a-skill\ntitle: "A: skill"\ndescription: Use when testing.\n---\n\n# Body\n',
        'a-skill/ref-b.md': 'B',
        'a-skill/ref-a.md': 'A',
      });
      expect(run()).toEqual([
        { name: 'a-skill', title: 'A: skill', description: 'Use when testing.', body: '# Body\n', references: [{ name: 'ref-a', body: 'A' }, { name: 'ref-b', body: 'B' }] },
      ]);
    });

    it('refuses a file without frontmatter, with a missing key, a mismatched name or no body', async () => {
      await expect(load({ 'x.md': '# no frontmatter' }).then((r) => r())).rejects.toThrow(/x\.md: missing frontmatter/);
      await expect(load({ 'x.md': '---\nname: x\ntitle: X\n---\nbody' }).then((r) => r())).rejects.toThrow(/frontmatter has no description/);
      await expect(load({ 'x.md': '---\nname: y\ntitle: X\ndescription: D\n---\nbody' }).then((r) => r())).rejects.toThrow(
        /frontmatter name "y" differs from the file name "x"/,
      );
      await expect(load({ 'x.md': '---\nname: x\ntitle: X\ndescription: D\n---\n\n' }).then((r) => r())).rejects.toThrow(SkillError);
      await expect(load({ 'x.md': '---\nname x\n---\nbody' }).then((r) => r())).rejects.toThrow(/line 1 is not "key: value"/);
    });
  });
});

describe('skill catalogue and workspace skills', () => {
  let t: TestDatabase;
  let now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const clock = { now: () => now };

  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  async function workspace(): Promise<string> {
    const id = newId('ws');
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [id]);
    return id;
  }

  const skill = (ws: string, name: string, extra: Record<string, string> = {}) =>
    createWorkspaceSkill(t.pool, { workspaceId: ws, name, title: `Title of ${name}`, description: `Use when doing ${name}.`, body: `# ${name}\n\nSteps.`, ...extra }, clock);

  it('lists the built-in skills for a workspace without its own', async () => {
    const catalogue = await findSkills(t.pool, await workspace());
    expect(catalogue.map((s) => s.name)).toEqual(BUILT_IN);
    expect(catalogue.every((s) => s.source === 'built_in')).toBe(true);
    expect(catalogue[0]).toEqual({
      name: 'customer-research',
      title: builtInSkills().get('customer-research')!.title,
      description: builtInSkills().get('customer-research')!.description,
      source: 'built_in',
    });
  });

  it('adds workspace skills, lets one override a built-in of the same name, and keeps them to their workspace', async () => {
    const ws = await workspace();
    const other = await workspace();
    const created = await skill(ws, 'pricing-interviews');
    expect(created).toMatchObject({ workspaceId: ws, name: 'pricing-interviews', title: 'Title of pricing-interviews' });
    expect(created.id).toMatch(/^skl_/);
    expect(created.createdAt.getTime()).toBe(now);
    await skill(ws, 'write-prd', { title: 'Our PRD template', description: 'Use when writing a PRD the Acme way.' });
    const catalogue = await findSkills(t.pool, ws);
    expect(catalogue.map((s) => [s.name, s.source])).toEqual([
      ['customer-research', 'built_in'],
      ['extract-signals', 'built_in'],
      ['pricing-interviews', 'workspace'],
      ['prioritise-by-impact', 'built_in'],
      ['shaping', 'built_in'],
      ['summarize-conversation', 'built_in'],
      ['weekly-evidence-digest', 'built_in'],
      ['write-prd', 'workspace'],
    ]);
    expect(catalogue.find((s) => s.name === 'write-prd')!.title).toBe('Our PRD template');
    // Another workspace sees only the built-ins.
    expect((await findSkills(t.pool, other)).map((s) => [s.name, s.source])).toEqual(BUILT_IN.map((n) => [n, 'built_in']));
    expect(await readSkills(t.pool, other, ['pricing-interviews'])).toEqual({ skills: [], missing: ['pricing-interviews'] });
    expect((await readSkills(t.pool, other, ['write-prd'])).skills[0]!.source).toBe('built_in');
  });

  it('matches a query against name, title and description, ignoring case', async () => {
    const ws = await workspace();
    await skill(ws, 'churn-calls', { title: 'Churn call debrief', description: 'Use when a customer cancels.' });
    const names = async (query: string) => (await findSkills(t.pool, ws, { query })).map((s) => s.name);
    expect(await names('WEEKLY-EVIDENCE')).toEqual(['weekly-evidence-digest']); // name
    expect(await names('Shaping')).toEqual(['shaping', 'write-prd']); // write-prd's description mentions shaping notes
    expect(await names('debrief')).toEqual(['churn-calls']); // title
    expect(await names('CANCELS')).toEqual(['churn-calls']); // description
    expect(await names('signals source')).toEqual(['extract-signals']); // every word
    expect(await names('prd')).toContain('write-prd');
    expect(await names('no-such-thing-anywhere')).toEqual([]);
    expect(await names('  ')).toHaveLength(BUILT_IN.length + 1);
    await expect(findSkills(t.pool, ws, { query: 'x'.repeat(201) })).rejects.toThrow(SkillValidationError);
  });

  it('reads skills with their references, in the order asked, naming the missing ones', async () => {
    const ws = await workspace();
    await skill(ws, 'shaping', { body: '# Our shaping\n\nSix weeks, always.' });
    await skill(ws, 'pricing-interviews');
    const result = await readSkills(t.pool, ws, ['extract-signals', 'nope', 'shaping', 'pricing-interviews', 'extract-signals', 'also-nope']);
    expect(result.missing).toEqual(['nope', 'also-nope']);
    expect(result.skills.map((s) => [s.name, s.source])).toEqual([
      ['extract-signals', 'built_in'],
      ['shaping', 'workspace'],
      ['pricing-interviews', 'workspace'],
    ]);
    const extract = result.skills[0]!;
    expect(extract.title).toBe(builtInSkills().get('extract-signals')!.title);
    expect(extract.body).toBe(builtInSkills().get('extract-signals')!.body);
    expect(extract.references).toEqual([{ name: 'signal-quality-checklist', body: expect.stringContaining('One observation') }]);
    expect(result.skills[1]).toMatchObject({ body: '# Our shaping\n\nSix weeks, always.', references: [] });
    await expect(readSkills(t.pool, ws, [])).rejects.toThrow(/non-empty list/);
    await expect(readSkills(t.pool, ws, Array.from({ length: 21 }, (_, i) => `s${i}`))).rejects.toThrow(/at most 20/);
  });

  it('updates and deletes a workspace skill; deleting an override brings the built-in back', async () => {
    const ws = await workspace();
    const other = await workspace();
    await skill(ws, 'shaping');
    now += 60_000;
    const updated = await updateWorkspaceSkill(t.pool, { workspaceId: ws, name: 'shaping', body: 'new body' }, clock);
    expect(updated).toMatchObject({ name: 'shaping', title: 'Title of shaping', body: 'new body' });
    expect(updated.updatedAt.getTime()).toBe(now);
    expect(updated.createdAt.getTime()).toBe(now - 60_000);
    // Another workspace can neither change nor delete it, and is answered as if it did not exist.
    await expect(updateWorkspaceSkill(t.pool, { workspaceId: other, name: 'shaping', body: 'x' }, clock)).rejects.toThrow(
      new SkillNotFoundError('shaping'),
    );
    await expect(deleteWorkspaceSkill(t.pool, other, 'shaping')).rejects.toThrow('Skill shaping does not exist in this workspace');
    expect((await readSkills(t.pool, ws, ['shaping'])).skills[0]!.body).toBe('new body');
    await deleteWorkspaceSkill(t.pool, ws, 'shaping');
    const back = (await readSkills(t.pool, ws, ['shaping'])).skills[0]!;
    expect(back.source).toBe('built_in');
    expect(back.body).toBe(builtInSkills().get('shaping')!.body);
    await expect(deleteWorkspaceSkill(t.pool, ws, 'shaping')).rejects.toThrow(SkillNotFoundError);
    await expect(updateWorkspaceSkill(t.pool, { workspaceId: ws, name: 'missing', title: 'x' }, clock)).rejects.toThrow(SkillNotFoundError);
  });

  it('validates workspace skills and refuses a second skill of the same name', async () => {
    const ws = await workspace();
    const field = async (p: Promise<unknown>) => {
      const e = await p.then(() => null, (err: unknown) => err);
      expect(e).toBeInstanceOf(SkillValidationError);
      return (e as SkillValidationError).field;
    };
    expect(await field(skill(ws, 'Bad Name'))).toBe('name');
    expect(await field(skill(ws, 'trailing-'))).toBe('name');
    expect(await field(skill(ws, 'x'.repeat(65)))).toBe('name');
    expect(await field(skill(ws, 'ok', { title: '' }))).toBe('title');
    expect(await field(skill(ws, 'ok', { title: 't'.repeat(121) }))).toBe('title');
    expect(await field(skill(ws, 'ok', { description: ' ' }))).toBe('description');
    expect(await field(skill(ws, 'ok', { body: 'b'.repeat(200_001) }))).toBe('body');
    expect(await field(updateWorkspaceSkill(t.pool, { workspaceId: ws, name: 'ok' }, clock))).toBe('skill');
    await skill(ws, 'ok');
    await expect(skill(ws, 'ok')).rejects.toThrow(SkillNameTakenError);
    await expect(skill(await workspace(), 'ok')).resolves.toMatchObject({ name: 'ok' });
  });
});
