/**
 * The chaos run's table: per fault, the answers by status, the recovery, and what was lost.
 */
import { RECOVERY_KINDS } from './load.js';
import type { ChaosResult, FaultResult } from './run.js';

const seconds = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);

function outage(r: FaultResult, s: number): string {
  return r.fault === 'nats' || r.fault === 'postgres' ? `${r.fault} down ${s} s` : `kill -9 ${r.fault}`;
}

/** 2xx, 503, 500, everything else (other statuses, dropped connections, timeouts). */
function counts(r: FaultResult): [number, number, number, number] {
  let [ok, unavailable, failed, other] = [0, 0, 0, 0];
  for (const [key, n] of Object.entries(r.outcomes)) {
    const status = Number(key);
    if (status >= 200 && status < 300) ok += n;
    else if (status === 503) unavailable += n;
    else if (status === 500) failed += n;
    else other += n;
  }
  return [ok, unavailable, failed, other];
}

/** The slowest kind and its recovery (undefined: it never recovered). */
function worst(r: FaultResult): readonly [string, number | undefined] {
  return RECOVERY_KINDS.map((k) => [k, r.recoveryMs[k]] as const).sort((a, b) => (b[1] ?? Infinity) - (a[1] ?? Infinity))[0]!;
}

/** The slowest kind's recovery, named. */
function slowest(r: FaultResult): string {
  const [kind, ms] = worst(r);
  return ms === undefined ? `never (${kind})` : `${seconds(ms)} (${kind})`;
}

/** For a kill: from the new process serving until every kind succeeded again. */
function usedAgain(r: FaultResult): string {
  const ms = worst(r)[1];
  return r.window.servingMs === undefined || ms === undefined ? '-' : seconds(Math.max(0, ms - r.window.servingMs));
}

export function table(result: ChaosResult): string {
  const head = ['fault', 'requests', '2xx', '503', '500', 'other', 'recovered after', 'restarted', 'serving', 'used again', 'writes acked', 'lost', 'events', 'lost', 'delivered after', 'result'];
  const rows = result.faults.map((r) => [
    outage(r, result.seconds), ...[r.requests, ...counts(r)].map(String), slowest(r), seconds(r.window.restartMs), seconds(r.window.servingMs), usedAgain(r),
    String(r.writesChecked), String(r.writesLost.length), String(r.eventsChecked), String(r.eventsLost.length), seconds(r.eventsDeliveredMs),
    r.problems.length ? 'FAILED' : 'ok',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const lines = [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
  for (const r of result.faults.filter((x) => x.problems.length)) lines.push(`${r.fault}: ${r.problems.join('; ')}`);
  return lines.join('\n');
}

/** Per fault and kind: the answers seen and the recovery. */
export function details(result: ChaosResult): string {
  return result.faults.map((r) => {
    const kinds = Object.entries(r.byKind).map(([k, o]) => `${k} ${JSON.stringify(o)}${r.recoveryMs[k as keyof typeof r.recoveryMs] === undefined ? '' : ` back after ${r.recoveryMs[k as keyof typeof r.recoveryMs]} ms`}`);
    return `${outage(r, result.seconds)}: ${kinds.join('; ')}`;
  }).join('\n');
}
