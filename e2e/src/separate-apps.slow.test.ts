import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@loupe/db';
import { launchChromium } from '@loupe/browser-testing';
import { nginxConfig, startApp, startPathProxy, type HttpApp, type RunningApp } from '@loupe/tools/deploy';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackServer } from './callback-server';
import { controlledPostgres, FAST_JOBS, type ControlledPostgres } from './cluster';
import { mcpTool } from './mcp-client';
import { registerOAuthClient } from './oauth-flow';
import { admin, type Started } from './process';

// Issue 47: the four HTTP apps and the worker as separate processes, each from its own main.ts
// (`npm run start:<app>`), on one PostgreSQL behind one address that routes by deploy/nginx.conf's
// table: an OAuth flow in Chromium, MCP calls, an ingestion the worker processes, all through it.
describe('each app alone, behind one proxy', () => {
  let pg: ControlledPostgres;
  let proxy: Awaited<ReturnType<typeof startPathProxy>>;
  let browser: Browser;
  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  let dataDir: string;
  const children = new Map<string, RunningApp>();
  let output = '';
  let key: string;
  let productId: string;
  let projectId: string;
  let ports: Record<HttpApp, number>;

  const start = async (app: HttpApp | 'worker', env: Record<string, string>) => {
    children.set(app, await startApp(app, env, (text) => (output += text)));
  };

  beforeAll(async () => {
    pg = await controlledPostgres();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-separate-'));
    ports = { 'ingest-api': await freePort(), 'mcp-server': await freePort(), 'auth-server': await freePort(), web: await freePort() };
    proxy = await startPathProxy(ports);
    const common = { DATABASE_URL: pg.url, DATA_DIR: dataDir, PUBLIC_BASE_URL: proxy.url, TRUSTED_PROXIES: 'loopback', ...FAST_JOBS, LOG_LEVEL: 'info' };
    // One first, so the migrations run once; the others start together and find them applied.
    await start('auth-server', { ...common, PORT: String(ports['auth-server']) });
    await Promise.all([
      start('ingest-api', { ...common, PORT: String(ports['ingest-api']) }),
      start('mcp-server', { ...common, PORT: String(ports['mcp-server']) }),
      start('web', { ...common, PORT: String(ports.web) }),
      start('worker', common),
    ]);
    const ws = /Created workspace (\S+)/.exec(await admin(pg.url, 'workspace', 'create', '--name', 'Acme', '--owner', 'owner@acme.test'))![1]!;
    productId = /Created product (\S+)/.exec(await admin(pg.url, 'product', 'create', '--workspace', ws, '--name', 'Acme App'))![1]!;
    projectId = /Created project (\S+)/.exec(await admin(pg.url, 'project', 'create', '--workspace', ws, '--product', productId, '--name', 'Main'))![1]!;
    key = (await admin(pg.url, 'key', 'create', '--workspace', ws, '--name', 'ci', '--permissions', 'api:read,api:write,mcp:read,mcp:write', '--product', productId)).trim().split('\n').at(-1)!;
    await admin(pg.url, 'credits', 'grant', '--workspace', ws, '--amount', '1000');
    [browser, callbacks] = await Promise.all([launchChromium(), startCallbackServer()]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await callbacks?.close();
    await Promise.all([...children.values()].map((c) => c.stop()));
    await proxy?.close();
    await pg?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('ingests a record through the proxy, which the worker alone turns into a source found over MCP', async () => {
    const record = {
      _type: 'email', _schema_version: '1.0.0', _event_at: '2026-11-20T10:00:00Z', _vendor_ids: { mail: 'separate-1' },
      _product_id: productId, _project_ids: [projectId], _nature: 'evidence',
      data: { subject: 'Exports time out', from: 'ana@globex.test', body: 'Our weekly CSV export times out after ten minutes.' },
    };
    const sent = await fetch(`${proxy.url}/api/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify([record]) });
    expect(sent.status).toBe(202);
    let found: Record<string, any> | undefined;
    for (let i = 0; i < 120 && !found?.items?.length; i++) {
      await new Promise((r) => setTimeout(r, 500));
      found = (await mcpTool(proxy.url, { 'x-api-key': key }, 'find_sources', { query: 'export times out', product_id: productId })).result?.structuredContent;
    }
    expect(found!.items[0].title).toMatch(/Exports time out/);
    expect(proxy.routed.get('ingest-api')).toBeGreaterThan(0);
    expect(proxy.routed.get('mcp-server')).toBeGreaterThan(0);
  });

  it('runs an OAuth flow in Chromium on the proxy\'s one address, and the token it gives calls MCP', async () => {
    const service: Started = { child: children.get('auth-server')!.child, output: () => output, url: proxy.url, stop: async () => null };
    const flow = await registerOAuthClient(service, callbacks, 'Separate Notebook');
    const tokens = await flow.authorizeAs(browser, 'owner@acme.test', 'Acme');
    expect(tokens.access_token).toBeTruthy();
    const products = await mcpTool(proxy.url, { authorization: `Bearer ${tokens.access_token}` }, 'get_products', {});
    expect(products.ok).toBe(true);
    expect(JSON.stringify(products.result?.structuredContent)).toContain('Acme App');
    expect(proxy.routed.get('auth-server')).toBeGreaterThan(0);
  });

  it('serves the console from its own app, signing in through the authorization server', async () => {
    const page = await browser.newPage();
    try {
      const answer = await page.goto(`${proxy.url}/account`);
      expect(answer?.status()).toBe(200);
      expect(new URL(page.url()).pathname).toBe('/account/sign-in');
      expect(proxy.routed.get('web')).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  it('routes the same way through nginx with deploy/nginx.conf\'s configuration, where nginx is installed', async () => {
    const nginx = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim();
    if (!nginx) return; // not installed here: the Node proxy above routes by the same table
    const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-nginx-'));
    const port = await freePort();
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${dir}/${t};`).join(' ');
    await writeFile(path.join(dir, 'nginx.conf'), `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\ndaemon off;\nevents {}\nhttp {\naccess_log off;\n${temp}\n${nginxConfig(ports, `127.0.0.1:${port}`, 'localhost')}\n}\n`);
    const server = spawn(nginx, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'ignore' });
    try {
      const base = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 50 && !(await fetch(`${base}/healthz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
      // Each answer only its own app gives:
      expect((await (await fetch(`${base}/api/v1/openapi.json`)).json()).info.title).toBe('Loupe API');
      expect((await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()).issuer).toBe(proxy.url);
      const consolePage = await fetch(`${base}/account`, { redirect: 'manual' });
      expect(consolePage.status).toBe(303);
      expect(consolePage.headers.get('location')).toMatch(/\/account\/sign-in/);
      expect(await (await fetch(`${base}/account/sign-in`)).text()).toMatch(/Work email/);
      expect((await fetch(`${base}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).headers.get('www-authenticate')).toMatch(/resource_metadata/);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
