/**
 * A smoke run of `npm run bench -- --scale small` for a few seconds per scenario, to keep the
 * benchmark working: it must finish, report every scenario with its ratio to the baseline and
 * see no failed request, with the gRPC calls and SQL statements per request and the raw scrypt
 * rate. The figures themselves are not judged here.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { TEST_DATABASE_URL, TEST_NATS_URL } from './support/infra.js';

const MAIN = fileURLToPath(new URL('../bench/dist/main.js', import.meta.url));

it('runs every scenario at small scale and writes the result', async () => {
  const out = mkdtempSync(join(tmpdir(), 'edge-bench-smoke-'));
  try {
    let output = '';
    const child = spawn(process.execPath, [MAIN, '--scale', 'small', '--seconds', '3', '--rounds', '2', '--connections', '4', '--out', out], {
      env: { ...process.env, EDGE_DATABASE_URL: TEST_DATABASE_URL, EDGE_NATS_URL: TEST_NATS_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const code = await new Promise((r) => child.once('exit', r));
    const files = readdirSync(out);
    expect(files, output).toHaveLength(1);
    const result = JSON.parse(readFileSync(join(out, files[0]!), 'utf8'));
    expect(result).toMatchObject({ mode: 'cluster', scale: 'small', dataset: { identities: 1600, services: 1000, edgeRouters: 10, servicePolicies: 10 } });
    expect(result.baseline).toMatchObject({ valid: true, ratio: 1 });
    // Measured before each scenario; the baseline row is the median run.
    expect(result.baselineRuns).toHaveLength(result.scenarios.length);
    const sorted = [...result.baselineRuns].sort((a: number, b: number) => a - b);
    expect(result.baseline.requestsPerSecond).toBe(sorted[Math.floor((sorted.length - 1) / 2)]);
    expect(result.scenarios.map((s: { name: string }) => s.name)).toEqual(['authenticate', 'authenticate-sdk', 'current-identity', 'client-services', 'service-updates', 'create-session', 'management-identities']);
    for (const s of result.scenarios) {
      expect({ name: s.name, valid: s.valid, errors: s.errors, statusCodes: s.statusCodes }).toMatchObject({ name: s.name, valid: true, errors: 0 });
      expect(s.ratio, s.name).toBeGreaterThan(0);
      // To the baseline run right before it.
      expect(result.baselineRuns, s.name).toContain(s.baselineRequestsPerSecond);
      expect(s.ratio, s.name).toBeCloseTo(s.requestsPerSecond / s.baselineRequestsPerSecond, 2);
      expect(s.requests, s.name).toBeGreaterThan(0);
      // Every request but current-identity, the client's service list and marker and the
      // management identity list (answered from the gateway's caches once warm, asking again
      // after a change or a minute at most) reaches a service and its database, and the counts
      // say how often.
      const warmFromCache = ['current-identity', 'client-services', 'service-updates', 'management-identities'].includes(s.name);
      expect(s.counts?.grpcCallsPerRequest, s.name).toBeGreaterThanOrEqual(0);
      if (warmFromCache) expect(s.counts?.grpcCallsPerRequest, s.name).toBeLessThan(1);
      if (!warmFromCache) {
        expect(s.counts?.grpcCallsPerRequest, s.name).toBeGreaterThan(0);
        expect(s.counts?.sqlStatementsPerRequest, s.name).toBeGreaterThan(0);
        expect(Object.keys(s.counts.grpcCallsByMethod).length, s.name).toBeGreaterThan(0);
      }
    }
    expect(result.baseline.counts).toBeUndefined();
    // The raw scrypt rate of the same run, and the login scenario as a share of it.
    expect(result.scrypt).toMatchObject({ name: 'scrypt', valid: true });
    expect(result.scrypt.requestsPerSecond).toBeGreaterThan(0);
    const login = result.scenarios.find((s: { name: string }) => s.name === 'authenticate');
    expect(result.authenticateToScrypt).toBeCloseTo(login.requestsPerSecond / result.scrypt.requestsPerSecond, 2);
    const sdkLogin = result.scenarios.find((s: { name: string }) => s.name === 'authenticate-sdk');
    expect(result.sdkAuthenticateToScrypt).toBeCloseTo(sdkLogin.requestsPerSecond / result.scrypt.requestsPerSecond, 2);
    expect(result.policyPropagation).toMatchObject({ rounds: 2, errors: 0, valid: true });
    expect(result.policyPropagation.samplesMs).toHaveLength(2);
    expect(code, output).toBe(0);
    // The table names every scenario.
    for (const name of ['baseline', 'authenticate', 'authenticate-sdk', 'client-services', 'service-updates', 'scrypt', 'grpc/req', 'sql/req', 'of the raw scrypt rate', 'policy change']) expect(output).toContain(name);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 240_000);
