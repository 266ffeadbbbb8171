import { API_KEY_PERMISSIONS, createApiKey } from '@loupe/api-keys';
import { landBatch } from '@loupe/batches';
import { grantCredits } from '@loupe/credits';
import { type Database } from '@loupe/db';
import type { Boss } from '@loupe/jobs';
import { upsertCompanies } from '@loupe/companies';
import { companyInputSchema, parseBody, validateItems } from '@loupe/records';
import { demoCompanies, demoRecords } from './demo-evidence';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';

export interface DemoSeed {
  workspaceId: string;
  productId: string;
  projectId: string;
  apiKey: string;
}

const SEED_LOCK = 72_707_002;

/**
 * On the very first start (no workspace exists yet) creates a demo workspace with
 * one product, one project, a key holding every permission, and a batch of demo
 * customer evidence the worker turns into sources. Returns undefined when the
 * database already has workspaces, so restarts never seed twice.
 */
export async function seedDemo(database: Database, servicePrefix: string, boss?: Boss): Promise<DemoSeed | undefined> {
  const client = await database.pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [SEED_LOCK]);
    const { rowCount } = await client.query('SELECT 1 FROM workspaces LIMIT 1');
    if (rowCount) return undefined;
    const workspace = await createWorkspace(database.db, { name: 'Demo workspace', ownerEmail: 'demo@loupe.local' });
    const product = await createProduct(database.db, workspace.id, { name: 'Demo product', description: 'Created on first start' });
    const project = await createProject(database.db, workspace.id, product.id, { name: 'Demo project' });
    const owner = await database.db.membership.findFirst({ where: { workspaceId: workspace.id } });
    const { key } = await createApiKey(database.db, {
      workspaceId: workspace.id,
      name: 'Demo key (every permission)',
      permissions: API_KEY_PERMISSIONS,
      defaultProductId: product.id,
      createdByUserId: owner?.userId,
      servicePrefix,
    });
    // Enough to try everything: processing the demo evidence and a few hundred tool calls.
    await grantCredits(database.pool, workspace.id, 1000, 'demo:welcome', 'Demo credits granted on the first start');
    if (boss) {
      const now = Date.now();
      const companies = demoCompanies(now).map((c) => companyInputSchema.parse(c));
      for (const outcome of await upsertCompanies({ pool: database.pool, boss }, workspace.id, companies, new Date(now))) {
        if (!outcome.ok) throw new Error(`demo company refused: ${outcome.message}`);
      }
      // One batch per record, as a sender of one type per request would; the worker makes them sources.
      for (const record of demoRecords(product.id, project.id, now)) {
        const { accepted } = validateItems(parseBody('json', Buffer.from(JSON.stringify([record]))));
        await landBatch(database.pool, boss, {
          workspaceId: workspace.id, apiKeyId: null, productId: product.id, type: record._type, source: 'demo', format: undefined,
          accepted, rejectedCount: 0, totalErrorCount: 0, errors: [], now,
        });
      }
    }
    return { workspaceId: workspace.id, productId: product.id, projectId: project.id, apiKey: key };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [SEED_LOCK]).catch(() => {});
    client.release();
  }
}

/** The first-start banner: the key (shown once), the ids and a ready-to-paste curl line. */
export function demoBanner(url: string, seed: DemoSeed): string {
  const record = {
    _type: 'meeting_notes',
    _schema_version: '1.0.0',
    _event_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    _vendor_ids: { demo: 'note-1' },
    _product_id: seed.productId,
    _project_ids: [seed.projectId],
    _nature: 'evidence',
    data: { title: 'Kickoff with Acme', content: '# Pain points\nExports take too long.' },
  };
  return [
    '',
    'Demo workspace created. This API key is shown once; keep it:',
    '',
    `  API key:     ${seed.apiKey}`,
    `  Base URL:    ${url}`,
    `  Workspace:   ${seed.workspaceId}`,
    `  Product id:  ${seed.productId}`,
    `  Project id:  ${seed.projectId}`,
    '',
    `Manage it in a browser at ${url}/account: sign in as demo@loupe.local (the code is printed in this log).`,
    `Connect an AI client (Claude, Cursor, VS Code…) to ${url}/api/mcp.`,
    '',
    'Submit a record:',
    '',
    `  curl -sS -X POST ${url}/api/v1/ingest -H 'content-type: application/json' -H 'x-api-key: ${seed.apiKey}' -d '${JSON.stringify([record])}'`,
    '',
  ].join('\n');
}

/** Whether the database holds any workspace yet. */
export async function hasWorkspace(pool: Database['pool']): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM workspaces LIMIT 1');
  return (rowCount ?? 0) > 0;
}

/** Printed on a first start against an empty database of one's own (DATABASE_URL), where no demo is made. */
export function firstOwnerHelp(url: string): string {
  return [
    '',
    'No workspace yet. Create the first one and its owner (on this machine, with the same DATABASE_URL):',
    '',
    '  npm run admin -- workspace create --name "Your company" --owner you@example.com',
    '',
    `Then sign in at ${url}/account with that email (the code is mailed through SMTP_URL, or printed in this log without it),`,
    'and create API keys and invite members there. The demo workspace is made only on the embedded database, or with LOUPE_DEMO=1.',
    '',
  ].join('\n');
}
