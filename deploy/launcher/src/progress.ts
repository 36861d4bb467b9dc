/**
 * A one-line progress report: on a terminal the line is rewritten in place (at most ten times a
 * second); elsewhere (a log file, CI) a line is written at each tenth of the way, so the output
 * stays short.
 */

/** Where progress goes: a writable with an optional isTTY, like process.stderr. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** A progress counter towards `total`. */
export interface Progress {
  add(n: number): void;
  /** Ends the line (writes the final count). */
  done(): void;
}

const REDRAW_MS = 100;

/** Reports `label: done / total unit (pct%)` on `stream`. */
export function createProgress(label: string, total: number, unit: string, stream: ProgressStream = process.stderr): Progress {
  let count = 0;
  let drawnAt = 0;
  let tenth = 0;
  const text = () => `${label}: ${count.toLocaleString('en')} / ${total.toLocaleString('en')} ${unit} (${total ? Math.floor((100 * count) / total) : 100}%)`;
  return {
    add(n) {
      count = Math.min(total, count + n);
      if (stream.isTTY) {
        if (Date.now() - drawnAt < REDRAW_MS) return;
        drawnAt = Date.now();
        stream.write(`\r${text()}\x1b[K`);
      } else if (total > 0 && Math.floor((10 * count) / total) > tenth && count < total) {
        tenth = Math.floor((10 * count) / total);
        stream.write(`${text()}\n`);
      }
    },
    done() {
      stream.write(stream.isTTY ? `\r${text()}\x1b[K\n` : `${text()}\n`);
    },
  };
}
