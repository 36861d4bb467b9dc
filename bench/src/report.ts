/**
 * The run's result: a JSON file under bench/results/ and a table; with `--compare` the change
 * of each ratio against an earlier result.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PerRequest } from './counts.js';
import type { LoadResult } from './load.js';
import type { PropagationResult } from './scenarios.js';

export interface ScenarioResult extends LoadResult {
  name: string;
  description: string;
  /**
   * Throughput as a share of the baseline's (1 = as fast as one indexed read behind bare fastify):
   * of the baseline run measured right before the scenario.
   */
  ratio: number;
  /** The req/s of that baseline run (absent for the baseline and the scrypt rate). */
  baselineRequestsPerSecond?: number;
  /** False when any request failed: the figure then does not count. */
  valid: boolean;
  cpuPercent: number;
  peakRssMb: number;
  /**
   * gRPC calls and SQL statements per request, over every controller process (absent for the
   * baseline and the scrypt rate, which are not the controller).
   */
  counts?: PerRequest;
}

export interface BenchResult {
  date: string;
  mode: 'cluster' | 'standalone';
  scale: string;
  seconds: number;
  connections: number;
  machine: { cpus: number; memoryGb: number; node: string };
  dataset: Record<string, number> & { importSeconds: number };
  baseline: ScenarioResult;
  scenarios: ScenarioResult[];
  policyPropagation: PropagationResult & { valid: boolean };
  /** The baseline's req/s, one run before each scenario; `baseline` is the run of the median. */
  baselineRuns?: number[];
  /** The raw scrypt rate of the machine, measured in the same run (absent when not measured). */
  scrypt?: ScenarioResult;
  /** The `authenticate` scenario's req/s as a share of `scrypt`'s. */
  authenticateToScrypt?: number;
  /** The `authenticate-sdk` scenario's req/s as a share of `scrypt`'s. */
  sdkAuthenticateToScrypt?: number;
}

const col = (s: string | number, w: number) => String(s).padStart(w);

export function table(r: BenchResult): string {
  const head = `${'scenario'.padEnd(24)}${col('req/s', 10)}${col('base', 9)}${col('ratio', 8)}${col('p50 ms', 9)}${col('p99 ms', 9)}${col('errors', 8)}${col('cpu %', 7)}${col('rss MB', 8)}`
    + `${col('grpc/req', 10)}${col('sql/req', 9)}  valid`;
  const row = (s: ScenarioResult, ratio = s.ratio.toFixed(3)) => `${s.name.padEnd(24)}${col(s.requestsPerSecond, 10)}${col(s.baselineRequestsPerSecond ?? '-', 9)}${col(ratio, 8)}${col(s.latencyP50Ms, 9)}${col(s.latencyP99Ms, 9)}`
    + `${col(s.errors + s.non2xx, 8)}${col(s.cpuPercent, 7)}${col(s.peakRssMb, 8)}`
    + `${col(s.counts?.grpcCallsPerRequest ?? '-', 10)}${col(s.counts?.sqlStatementsPerRequest ?? '-', 9)}  ${s.valid ? 'yes' : 'NO'}`;
  const p = r.policyPropagation;
  return [
    `edge controller benchmark: ${r.mode}, scale ${r.scale}, ${r.seconds}s per scenario, ${r.connections} connections, ${r.machine.cpus} cpus`,
    `dataset: ${Object.entries(r.dataset).filter(([k]) => k !== 'importSeconds').map(([k, v]) => `${v} ${k}`).join(', ')} (imported in ${r.dataset.importSeconds}s)`,
    head, row(r.baseline), ...r.scenarios.map((s) => row(s)), ...(r.scrypt ? [row(r.scrypt, '-')] : []),
    ...(r.authenticateToScrypt !== undefined
      ? [`authenticate: ${(r.authenticateToScrypt * 100).toFixed(1)}% of the raw scrypt rate (${r.scrypt!.requestsPerSecond} verifications/s)`]
      : []),
    ...(r.sdkAuthenticateToScrypt !== undefined ? [`authenticate-sdk: ${(r.sdkAuthenticateToScrypt * 100).toFixed(1)}% of the raw scrypt rate`] : []),
    ...(r.baselineRuns ? [`baseline measured before each scenario (its ratio is to that run, \`base\`): ${r.baselineRuns.join(', ')} req/s; the baseline row is the median`] : []),
    p.rounds === 0
      ? 'policy change → client service list: not measured (--only)'
      : `policy change → client service list: p50 ${p.p50Ms} ms, max ${p.maxMs} ms over ${p.rounds} rounds, errors ${p.errors}  valid ${p.valid ? 'yes' : 'NO'}`,
  ].join('\n');
}

export function write(dir: string, r: BenchResult): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${r.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
  return file;
}

/** Ratio and latency changes against an earlier result, scenario by scenario. */
export function compare(now: BenchResult, file: string): string {
  const before = JSON.parse(readFileSync(file, 'utf8')) as BenchResult;
  const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)}%`);
  const lines = [`compared with ${file} (${before.date}, ${before.mode}, scale ${before.scale}):`];
  for (const s of now.scenarios) {
    const b = before.scenarios.find((x) => x.name === s.name);
    if (!b) {
      lines.push(`  ${s.name.padEnd(22)} new`);
      continue;
    }
    const counts = b.counts && s.counts
      ? `, grpc/req ${b.counts.grpcCallsPerRequest} → ${s.counts.grpcCallsPerRequest}, sql/req ${b.counts.sqlStatementsPerRequest} → ${s.counts.sqlStatementsPerRequest}`
      : '';
    lines.push(`  ${s.name.padEnd(22)} ratio ${b.ratio.toFixed(3)} → ${s.ratio.toFixed(3)} (${pct(s.ratio, b.ratio)}), p99 ${b.latencyP99Ms} → ${s.latencyP99Ms} ms${counts}`);
  }
  const p = before.policyPropagation;
  if (p?.rounds && now.policyPropagation.rounds) lines.push(`  ${'policy-propagation'.padEnd(22)} p50 ${p.p50Ms} → ${now.policyPropagation.p50Ms} ms (${pct(now.policyPropagation.p50Ms, p.p50Ms)})`);
  return lines.join('\n');
}
