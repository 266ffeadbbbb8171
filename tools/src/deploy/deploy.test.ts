import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nginxConfig } from './nginx';
import { routeOf } from './routes';

const root = path.resolve(import.meta.dirname, '../../..');

describe('the routing table of separate apps', () => {
  it('sends each path to the app that serves it, the longest prefix winning', () => {
    const cases: Array<[string, string]> = [
      ['/api/v1/ingest', 'ingest-api'], ['/api/v1/ingest/batches/bat_1', 'ingest-api'], ['/docs', 'ingest-api'],
      ['/api/mcp', 'mcp-server'], ['/api/mcp/icons/find_sources.svg', 'mcp-server'], ['/.well-known/oauth-protected-resource/api/mcp', 'mcp-server'],
      ['/api/mcp/.well-known/openid-configuration', 'auth-server'], ['/.well-known/oauth-authorization-server', 'auth-server'],
      ['/oauth/token', 'auth-server'], ['/oauth/assets/pages.css', 'auth-server'], ['/account/sign-in', 'auth-server'], ['/account/sign-in/code', 'auth-server'],
      ['/auth/idp/okta/start', 'auth-server'], ['/inbound/mail', 'auth-server'],
      ['/', 'web'], ['/account', 'web'], ['/account/w/ws_1/opportunities', 'web'], ['/account/sign-inx', 'web'], ['/nowhere', 'web'],
      ['/api/v10', 'web'], ['/oauthx', 'web'],
    ];
    expect(cases.map(([p]) => [p, routeOf(p)])).toEqual(cases);
  });

  it('deploy/nginx.conf is the one the table makes (npm run docs:proxy)', async () => {
    expect(await readFile(path.join(root, 'deploy/nginx.conf'), 'utf8')).toBe(nginxConfig());
  });

  it('is a configuration nginx accepts, where nginx is installed', async () => {
    const nginx = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim();
    if (!nginx) return; // not installed here: the file is still checked against the table above
    const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-nginx-'));
    try {
      const site = nginxConfig(undefined, '127.0.0.1:18443', 'localhost');
      await writeFile(path.join(dir, 'nginx.conf'), `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n${site}\n}\n`);
      execFileSync(nginx, ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'pipe' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
