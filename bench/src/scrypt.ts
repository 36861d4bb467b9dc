/**
 * Measures the raw scrypt rate (scrypt-rate.ts) in its own process, warmed up and then timed
 * like a scenario, so the login scenario can be read as a share of what the machine can hash.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { measure } from './processes.js';
import type { ScenarioResult } from './report.js';

interface Run {
  count: number;
  seconds: number;
  latenciesMs: number[];
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! * 10) / 10;
}

/**
 * The verification rate with `concurrency` verifications in flight: `env` is the controller's,
 * so the thread pool is sized as the auth service's is.
 */
export async function measureScrypt(env: Record<string, string>, concurrency: number, warmupSeconds: number, seconds: number): Promise<ScenarioResult> {
  const script = fileURLToPath(new URL('./scrypt-rate.js', import.meta.url));
  const child = spawn(process.execPath, [script, String(concurrency)], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`scrypt-rate exited with ${code}`))));
  const next = async () => (await Promise.race([lines.next(), exited])).value as string;
  const ask = async (s: number): Promise<Run> => {
    child.stdin!.write(`run ${s}\n`);
    return JSON.parse(await next()) as Run;
  };
  try {
    if ((await next()) !== 'ready') throw new Error('scrypt-rate did not start');
    await ask(warmupSeconds);
    const { result, cpuPercent, peakRssMb } = await measure(child.pid!, () => ask(seconds));
    const sorted = [...result.latenciesMs].sort((a, b) => a - b);
    return {
      name: 'scrypt',
      description: `raw scrypt verifications of this machine, ${concurrency} in flight (the auth service's parameters and thread pool)`,
      requests: result.count,
      requestsPerSecond: Math.round((result.count / result.seconds) * 10) / 10,
      latencyP50Ms: percentile(sorted, 50),
      latencyP99Ms: percentile(sorted, 99),
      errors: 0, non2xx: 0, statusCodes: {}, ratio: 0, valid: result.count > 0, cpuPercent, peakRssMb,
    };
  } finally {
    exited.catch(() => undefined);
    child.kill('SIGTERM');
  }
}
