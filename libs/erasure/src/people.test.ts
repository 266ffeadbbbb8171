import type { TestDatabase } from '@loupe/db/testing';
import { QUEUES, type Boss } from '@loupe/jobs';
import { createLocalStorage } from '@loupe/storage';
import { describe, expect, it } from 'vitest';
import { useErasureEnvironment } from './test/environment';
import { getErasure, requestErasure, runErasure } from './index';

// Erasing a person takes their entries out of the workspace's people (libs/companies); their company stays.
let t: TestDatabase;
let boss: Boss;
let dir: string;
let now = Date.UTC(2026, 10, 1);
const clock = { now: () => now++ };

useErasureEnvironment('loupe-erasure-people-', (env) => ({ t, boss, dir } = env));

async function plant(ws: string) {
  await t.pool.query(`INSERT INTO companies (id, workspace_id, external_id, name, domains, created_at, updated_at) VALUES ($1, $2, 'crm-1', 'Globex', '{globex.test}', now(), now())`, [`cmp_${ws}`, ws]);
  await t.pool.query(
    `INSERT INTO people (id, workspace_id, external_id, email, name, company_id, created_at, updated_at) VALUES
       ($1 || '_1', $2, 'contact-ana', 'ana@globex.test', 'Ana Planted', $3, now(), now()),
       ($1 || '_2', $2, 'cust-ana-42', NULL, 'Ana (support)', $3, now(), now()),
       ($1 || '_3', $2, 'contact-bo', 'bo@globex.test', 'Bo', $3, now(), now())`,
    [`per_${ws}`, ws, `cmp_${ws}`],
  );
}

const peopleOf = async (ws: string) => (await t.pool.query<{ external_id: string }>('SELECT external_id FROM people WHERE workspace_id = $1 ORDER BY 1', [ws])).rows.map((r) => r.external_id);

describe('erasing a person', () => {
  it('deletes the people entries with their email or whose external_id is their participant id, counts them, and leaves the company; a dry run only counts', async () => {
    const [ws, other] = ['ws_people_a', 'ws_people_b'];
    for (const id of [ws, other]) await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [id, 'W']);
    await plant(ws);
    await plant(other);
    const deps = { pool: t.pool, boss, storage: createLocalStorage(dir), clock };
    const by = { label: 'test' };

    const dry = await requestErasure(t.pool, boss, { workspaceId: ws, email: 'ANA@globex.test', participantId: 'cust-ana-42', dryRun: true, by, now: new Date(clock.now()) });
    expect((await runErasure(deps, ws, dry.id)).status).toBe('previewed');
    expect((await getErasure(t.pool, ws, dry.id))!.preview!.counts).toMatchObject({ people: 2 });
    expect(await peopleOf(ws)).toEqual(['contact-ana', 'contact-bo', 'cust-ana-42']);

    const real = await requestErasure(t.pool, boss, { workspaceId: ws, email: 'ANA@globex.test', participantId: 'cust-ana-42', by, now: new Date(clock.now()) });
    expect((await runErasure(deps, ws, real.id)).status).toBe('complete');
    expect((await getErasure(t.pool, ws, real.id))!.counts).toMatchObject({ people: 2 });
    expect(await peopleOf(ws)).toEqual(['contact-bo']);
    expect((await t.pool.query('SELECT 1 FROM companies WHERE workspace_id = $1', [ws])).rowCount).toBe(1);
    // the other workspace's people are its own
    expect(await peopleOf(other)).toEqual(['contact-ana', 'contact-bo', 'cust-ana-42']);
    // the workspace's signals are resolved again, with the deletion
    const { rows } = await t.pool.query("SELECT 1 FROM pgboss.job WHERE name = $1 AND data->>'workspaceId' = $2", [QUEUES.resolveCompanies, ws]);
    expect(rows.length).toBeGreaterThan(0);
  });
});
