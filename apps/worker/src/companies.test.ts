import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { addSignals } from '@loupe/evidence';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from './app';
import { FAST_OPTIONS, createProductWithSource, createWorkspace, silentLog, startBoss, testConfig, waitFor } from './test/helpers';

const SIGNALS: Array<[theme: string, title: string, content: string, who: string]> = [
  ['Slow export', 'Quarterly export to Excel is slow', 'Exporting the quarterly report to Excel takes twenty minutes.', 'ana@globex.com'],
  ['Slow export, timeouts', 'CSV export times out on big reports', 'The CSV export times out once the report has thousands of rows.', 'claire@umbrella.co'],
  ['Slow export', 'Export of the ledger is slow', 'Exporting the general ledger to a spreadsheet is far too slow every month.', 'bo@globex.com'],
  ['Slow export never finishes', 'Large exports never finish', 'Exporting a full year of transactions to a spreadsheet never finishes in the browser.', 'kim@gmail.com'],
  ['Single sign-on (SSO)', 'SAML single sign-on required', 'Security policy requires SAML single sign-on for every tool.', 'kim@gmail.com'],
  ['Single sign-on (SSO) with Okta', 'Needs Okta login', 'Procurement will only sign if users can log in through Okta.', 'claire@umbrella.co'],
];

describe('companies.resolve: evidence resolved again after companies change', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dataDir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-companies-'));
    boss = await startBoss(t.url);
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, close: true });
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The CRM import: Globex (enterprise) and Umbrella (SMB); kim@gmail.com is a person with Umbrella as her company. */
  async function importCompanies(ws: string) {
    const add = async (ext: string, name: string, domain: string, arr: number, segment: string) => {
      const id = newId('cmp');
      await t.pool.query(
        `INSERT INTO companies (id, workspace_id, external_id, name, domains, arr, segment, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, now(), now())`,
        [id, ws, ext, name, [domain], arr, segment],
      );
      await t.pool.query('INSERT INTO company_domains (workspace_id, domain, company_id) VALUES ($1, $2, $3)', [ws, domain, id]);
      return id;
    };
    await add('c-1', 'Globex', 'globex.com', 120_000, 'enterprise');
    const umbrella = await add('c-2', 'Umbrella', 'umbrella.co', 30_000, 'smb');
    await t.pool.query(
      'INSERT INTO people (id, workspace_id, external_id, email, company_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, now(), now())',
      [newId('per'), ws, 'p-kim', 'kim@gmail.com', umbrella],
    );
  }

  async function evidence(ws: string, prod: string, src: string) {
    const items = SIGNALS.map(([theme, title, content, who]) => ({ type: 'pain_point', title, content, theme, participantId: who, whoSaidIt: who }));
    await addSignals(t.pool, { workspaceId: ws, sourceId: src, items }, { now: () => Date.now() });
    await enqueue(boss, QUEUES.recomputeOpportunities, { workspaceId: ws, productId: prod });
    await waitFor('the signals placed', async () => {
      const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM signals WHERE workspace_id = $1 AND NOT cluster_pending', [ws]);
      return rows[0].n === SIGNALS.length;
    });
  }

  const figures = async (ws: string) => (await t.pool.query<{ title: string; evidence_count: number; unique_company_count: number; revenue: string; segments: string[]; impact: unknown }>(
    `SELECT title, evidence_count, unique_company_count, revenue, segments, impact FROM opportunities WHERE workspace_id = $1 ORDER BY revenue DESC, title`, [ws],
  )).rows;

  it('importing the companies after the evidence gives the same figures as importing them before it', async () => {
    const worker = createWorker({ pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config: testConfig(dataDir), options: FAST_OPTIONS });
    await worker.start();
    try {
      const first = await createWorkspace(t.pool);
      const a = await createProductWithSource(t.pool, first);
      await importCompanies(first);
      await evidence(first, a.prod, a.src);
      const expected = await figures(first);
      expect(expected.map((o) => [o.evidence_count, o.unique_company_count, Number(o.revenue)])).toEqual([[4, 2, 150_000], [2, 1, 30_000]]);

      const late = await createWorkspace(t.pool);
      const b = await createProductWithSource(t.pool, late);
      await evidence(late, b.prod, b.src);
      expect((await figures(late)).map((o) => Number(o.revenue))).toEqual([0, 0]);
      await importCompanies(late);
      await enqueue(boss, QUEUES.resolveCompanies, { workspaceId: late });
      await waitFor('the late import resolved', async () => (await figures(late)).every((o) => Number(o.revenue) > 0));
      expect(await figures(late)).toEqual(expected);
      // The first workspace's companies never counted for the other.
      const { rows } = await t.pool.query(
        'SELECT count(*)::int AS n FROM signals s JOIN companies c ON c.id = s.company_id WHERE s.workspace_id <> c.workspace_id',
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await worker.stop();
    }
  });
});
