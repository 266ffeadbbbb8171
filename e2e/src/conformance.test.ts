import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { startCredentialProxy } from './credential-proxy';
import { packageBin, root, runBin, startProcess, type Started } from './process';

const EXPECTED_FAILURES = path.join(root, 'e2e/conformance-expected-failures.json');

// Issue 25: the suite's 2026-07-28 server scenarios (@modelcontextprotocol/conformance 0.2.0-alpha.12,
// installed as conformance-2026-07-28; 0.1.16 runs the handshake-era ones). Only the scenarios that apply
// to a product server: the others call the suite's own fixture tools, prompts and resources. Every
// check must succeed except those listed with their reason.
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
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

/** Scenario → its checks, from the suite's output folder (`server-<scenario>-<timestamp>/checks.json`). */
async function resultsIn(dir: string) {
  const results = new Map<string, Check[]>();
  for (const entry of await readdir(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    if (scenario) results.set(scenario, JSON.parse(await readFile(path.join(dir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

// The official MCP conformance suite's server scenarios against one `npm start`. The suite cannot send
// credentials, so it talks to a loopback proxy that adds the demo API key. A handshake-era scenario
// fails, as in the suite's own baseline check, when any of its checks is a FAILURE or a WARNING.
describe('MCP conformance suite (server scenarios)', () => {
  let dataDir: string;
  let service: Started;
  let proxy: Awaited<ReturnType<typeof startCredentialProxy>>;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-conformance-'));
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

  it('the expected-failures file gives a reason for each entry, and only for its entries', async () => {
    const file = JSON.parse(await readFile(EXPECTED_FAILURES, 'utf8')) as { server: string[]; reasons: Record<string, string> };
    expect(new Set(file.server).size).toBe(file.server.length);
    expect(Object.keys(file.reasons).sort()).toEqual([...file.server].sort());
    for (const [scenario, reason] of Object.entries(file.reasons)) expect(reason.length, scenario).toBeGreaterThan(40);
  });

  it('every scenario passes except the expected failures, and every expected failure still fails', async () => {
    const file = JSON.parse(await readFile(EXPECTED_FAILURES, 'utf8')) as { server: string[] };
    const conformance = packageBin('@modelcontextprotocol/conformance', 'conformance');
    const listed = await runBin(conformance, ['list', '--server']);
    expect(listed.code, listed.stderr).toBe(0);
    const known = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
    expect(known.length).toBeGreaterThan(20);

    const out = path.join(dataDir, 'conformance');
    // `--suite all` includes the suite's pending scenarios too.
    const run = await runBin(conformance, ['server', '--url', `${proxy.url}/api/mcp`, '--suite', 'all', '--expected-failures', EXPECTED_FAILURES, '-o', out], { cwd: dataDir });
    const results = await resultsIn(out);
    const failing = (checks: Check[]) => checks.some((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    const why = (scenario: string) => results.get(scenario)!.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.id}: ${c.errorMessage ?? c.status}`);

    expect({
      notRun: known.filter((s) => !results.has(s)),
      unknownInFile: file.server.filter((s) => !known.includes(s)),
      unexpectedFailures: [...results.keys()].filter((s) => failing(results.get(s)!) && !file.server.includes(s)).map((s) => ({ [s]: why(s) })),
      expectedButPassing: file.server.filter((s) => results.has(s) && !failing(results.get(s)!)),
      passingWithoutASuccessfulCheck: [...results.keys()].filter((s) => !failing(results.get(s)!) && !results.get(s)!.some((c) => c.status === 'SUCCESS')),
    }).toEqual({ notRun: [], unknownInFile: [], unexpectedFailures: [], expectedButPassing: [], passingWithoutASuccessfulCheck: [] });
    // The suite's own verdict on the same file agrees.
    expect(run.code, run.stdout.slice(-3000)).toBe(0);
    expect(run.stdout).toContain('Baseline check passed');
  });

  describe('2026-07-28 server scenarios', () => {
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
});
