import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { startCredentialProxy } from './credential-proxy';
import { packageBin, runBin, startProcess, type Started } from './process';

// Issue 25: the MCP conformance suite's 2026-07-28 server scenarios (@modelcontextprotocol/conformance
// 0.2.0-alpha.12, installed as conformance-2026-07-28; 0.1.16 runs the handshake-era ones in
// conformance.test.ts) against `npm start`, through the loopback proxy that adds the demo API key.
// Only the scenarios that apply to a product server: the others call the suite's own fixture tools,
// prompts and resources. Every check must succeed except those listed with their reason.

const SCENARIOS = [
  'server-stateless', 'http-header-validation', 'caching', 'tools-list', 'prompts-list', 'dns-rebinding-protection',
  'server-sse-multiple-streams', 'input-required-result-unsupported-methods', 'input-required-result-validate-input',
];

/** Checks that cannot succeed against a product server, and why. */
const NOT_APPLICABLE: Record<string, string> = {
  'sep-2575-server-rejects-undeclared-capability': 'needs the suite\'s fixture tool test_missing_capability; no tool of ours requires a client capability',
  'sep-2575-missing-capability-http-400': 'needs the fixture tool test_missing_capability (we never send -32021)',
  'sep-2575-http-server-no-independent-requests-on-stream': 'needs the fixture tool test_streaming_elicitation; we answer JSON only and never send requests',
  'sep-2575-server-no-log-without-loglevel': 'needs the fixture tool test_logging_tool; we send no notifications/message at all',
  'sep-2549-resources-list-caching-hints': 'no resources (spec 4.1): resources/list is 404 -32601',
  'sep-2549-resources-templates-list-caching-hints': 'no resources (spec 4.1): resources/templates/list is 404 -32601',
};

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

describe('MCP conformance suite, 2026-07-28 server scenarios', () => {
  let dataDir: string;
  let service: Started;
  let proxy: Awaited<ReturnType<typeof startCredentialProxy>>;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-conformance-2026-'));
    delete process.env.DATABASE_URL;
    service = await startProcess({ DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) });
    const key = /API key:\s+(\S+)/.exec(service.output())![1]!;
    proxy = await startCredentialProxy(service.url, { 'x-api-key': key });
  });
  afterAll(async () => {
    await proxy?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('every check of the applicable scenarios succeeds, except the ones that need the suite\'s fixtures', async () => {
    const conformance = packageBin('conformance-2026-07-28', 'conformance');
    const out = path.join(dataDir, 'results');
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const scenario of SCENARIOS) {
      const run = await runBin(conformance, ['server', '--url', `${proxy.url}/api/mcp`, '--scenario', scenario, '--spec-version', '2026-07-28', '-o', out], { cwd: dataDir });
      const folder = (await readdir(out)).find((e) => e.startsWith(`server-${scenario}-2`));
      if (!folder) {
        problems.push(`${scenario}: no results (exit ${run.code}): ${run.stderr.slice(-500)}`);
        continue;
      }
      const checks = JSON.parse(await readFile(path.join(out, folder, 'checks.json'), 'utf8')) as Check[];
      expect(checks.filter((c) => c.status === 'SUCCESS').length, scenario).toBeGreaterThan(0);
      for (const c of checks) {
        seen.add(c.id);
        if ((c.status === 'FAILURE' || c.status === 'WARNING') && !NOT_APPLICABLE[c.id]) problems.push(`${scenario} ${c.id}: ${c.status} ${c.errorMessage ?? ''}`);
      }
    }
    expect(problems).toEqual([]);
    expect(Object.keys(NOT_APPLICABLE).filter((id) => !seen.has(id))).toEqual([]); // the list names real checks
    for (const id of ['sep-2575-server-implements-discover', 'sep-2575-http-server-error-jsonrpc-id', 'sep-2549-tools-list-caching-hints', 'tools-list-deterministic-order']) {
      expect(seen, id).toContain(id);
    }
  });
});
