import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '@edge/logging';
import { createSupervisor, restartDelay } from './supervisor.js';

const dir = mkdtempSync(join(tmpdir(), 'edge-supervisor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A script that appends a start time to `log` and then exits with `code` or stays up. */
function script(name: string, code: number | 'stay'): { path: string; starts: () => number[] } {
  const path = join(dir, `${name}.cjs`);
  const log = join(dir, `${name}.log`);
  writeFileSync(log, '');
  writeFileSync(path, `require('fs').appendFileSync(${JSON.stringify(log)}, Date.now() + '\\n');\n${code === 'stay' ? 'setInterval(() => {}, 1000);' : `process.exit(${code});`}\n`);
  return { path, starts: () => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map(Number) };
}

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({ write(chunk, _enc, cb) { lines.push(JSON.parse(String(chunk))); cb(); } });
  return { lines, log: createLogger({ destination: sink, format: 'json' }) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
};

describe('restartDelay', () => {
  it('doubles from the first delay up to the cap', () => {
    const b = { initialMs: 200, maxMs: 30_000, stableMs: 30_000 };
    expect([0, 1, 2, 3, 7, 8, 20].map((n) => restartDelay(b, n))).toEqual([200, 400, 800, 1600, 25_600, 30_000, 30_000]);
  });
});

describe('the supervisor', () => {
  it('restarts a process that keeps crashing with a growing delay, up to the cap, logging each exit code', async () => {
    const crash = script('crash', 3);
    const { lines, log } = capture();
    const sup = createSupervisor({ log, backoff: { initialMs: 50, maxMs: 200, stableMs: 60_000 } });
    sup.run('crasher', crash.path, { PATH: process.env.PATH });
    await until(() => crash.starts().length >= 6, 10_000);
    await sup.stop(1_000);
    const starts = crash.starts();
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    // 50, 100, 200, 200, …: each gap at least the delay (plus the time to start node).
    expect(gaps[0]).toBeGreaterThanOrEqual(50);
    expect(gaps[1]).toBeGreaterThanOrEqual(100);
    expect(gaps[2]).toBeGreaterThanOrEqual(200);
    expect(Math.max(...gaps.slice(3))).toBeLessThan(200 + 2_000);
    const exits = lines.filter((l) => l.process === 'crasher' && l.code === 3);
    expect(exits.length).toBeGreaterThanOrEqual(5);
    expect(exits.slice(0, 4).map((l) => l.restartInMs)).toEqual([50, 100, 200, 200]);
    expect(String(exits[0]!.msg)).toContain('crasher exited (code 3); restarting in 50 ms');
  });

  it('starts over at the first delay after a process ran long enough to count as healthy', async () => {
    const path = join(dir, 'slow-crash.cjs');
    writeFileSync(path, 'setTimeout(() => process.exit(4), 250);\n');
    const { lines, log } = capture();
    const sup = createSupervisor({ log, backoff: { initialMs: 20, maxMs: 1_000, stableMs: 200 } });
    sup.run('slow', path, { PATH: process.env.PATH });
    await until(() => lines.filter((l) => l.process === 'slow' && l.code === 4).length >= 3, 10_000);
    await sup.stop(1_000);
    expect(lines.filter((l) => l.code === 4).slice(0, 3).map((l) => l.restartInMs)).toEqual([20, 20, 20]);
  });

  it('starts a killed process again at once, logging the signal', async () => {
    const stay = script('stay', 'stay');
    const { lines, log } = capture();
    const sup = createSupervisor({ log, backoff: { initialMs: 50, maxMs: 1_000, stableMs: 60_000 } });
    sup.run('worker', stay.path, { PATH: process.env.PATH });
    await until(() => stay.starts().length === 1);
    const first = sup.processes()[0]!.child!;
    const killedAt = Date.now();
    first.kill('SIGKILL');
    await until(() => stay.starts().length === 2);
    expect(stay.starts()[1]! - killedAt).toBeLessThan(2_000);
    expect(sup.processes()[0]).toMatchObject({ name: 'worker', restarts: 1 });
    expect(sup.processes()[0]!.child!.pid).not.toBe(first.pid);
    expect(lines.find((l) => l.process === 'worker' && l.signal === 'SIGKILL')).toBeDefined();
    await sup.stop(1_000);
  });

  it('stops everything on stop and restarts nothing, also a process waiting for its restart', async () => {
    const stay = script('stay2', 'stay');
    const crash = script('crash2', 1);
    const { lines, log } = capture();
    const sup = createSupervisor({ log, backoff: { initialMs: 300, maxMs: 300, stableMs: 60_000 } });
    sup.run('worker', stay.path, { PATH: process.env.PATH });
    sup.run('crasher', crash.path, { PATH: process.env.PATH });
    await until(() => stay.starts().length === 1 && lines.some((l) => l.process === 'crasher'));
    const pid = sup.processes()[0]!.child!.pid!;
    await sup.stop(2_000);
    await sleep(600);
    expect(stay.starts()).toHaveLength(1);
    expect(crash.starts()).toHaveLength(1);
    expect(sup.processes().every((p) => p.child === undefined)).toBe(true);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(lines.filter((l) => l.process === 'worker')).toEqual([]);
  });
});
