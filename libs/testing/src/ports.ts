/**
 * Ports for processes a test or benchmark starts on fixed addresses (the local cluster's gRPC
 * and metrics ports). They are taken below the kernel's ephemeral range, from which listen(0)
 * and outgoing connections draw, so parallel tests do not grab them between the check and the
 * bind.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The first port of the ephemeral range (Linux default 32768). */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 2048 ? first : 32768;
  } catch {
    return 32768;
  }
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * The ports at or above 10000 that `fetch` refuses to connect to (the Fetch standard's "bad
 * ports"): a cluster whose /metrics port is one of them cannot be scraped by the benchmark.
 */
const FETCH_BAD_PORTS = [10080];

/**
 * A random base port such that base … base+span-1 are all free now, all lie below the
 * ephemeral range (and at or above 10000), and none is a port `fetch` refuses. `random` picks
 * the candidates (tests).
 */
export async function freePortBlock(span: number, attempts = 50, random: () => number = Math.random): Promise<number> {
  const low = 10_000;
  const high = ephemeralStart() - span;
  if (high <= low) throw new Error(`no room for ${span} ports below the ephemeral range`);
  for (let i = 0; i < attempts; i++) {
    const base = low + Math.floor(random() * (high - low));
    if (FETCH_BAD_PORTS.some((p) => p >= base && p < base + span)) continue;
    let free = true;
    for (let p = base; p < base + span && free; p++) free = await canBind(p);
    if (free) return base;
  }
  throw new Error(`no block of ${span} free ports found`);
}

/** One port that was free a moment ago, below the ephemeral range (see freePortBlock). */
export function freePort(): Promise<number> {
  return freePortBlock(1);
}
