import { describe, expect, it } from 'vitest';
import { createProgress } from './progress.js';

function sink(isTTY: boolean) {
  const out: string[] = [];
  return { out, stream: { isTTY, write: (t: string) => out.push(t) } };
}

describe('the progress line', () => {
  it('rewrites one line in place on a terminal and ends it with the total', () => {
    const { out, stream } = sink(true);
    const p = createProgress('importing', 2_000, 'rows', stream);
    p.add(500);
    p.add(500); // within the redraw interval: not drawn
    p.done();
    expect(out[0]).toBe('\rimporting: 500 / 2,000 rows (25%)\x1b[K');
    expect(out).toHaveLength(2);
    expect(out[1]).toBe('\rimporting: 1,000 / 2,000 rows (50%)\x1b[K\n');
    expect(out.join('').split('\n')).toHaveLength(2);
  });

  it('writes a line per tenth elsewhere, so a log stays short', () => {
    const { out, stream } = sink(false);
    const p = createProgress('importing', 1_000, 'rows', stream);
    for (let i = 0; i < 100; i++) p.add(10);
    p.done();
    expect(out).toHaveLength(10);
    expect(out[0]).toBe('importing: 100 / 1,000 rows (10%)\n');
    expect(out.at(-1)).toBe('importing: 1,000 / 1,000 rows (100%)\n');
  });
});
