// Builds (incrementally), then runs the controller: `standalone` (npm start) or `cluster`
// (npm run start:cluster); further arguments go to the launcher (`npm start -- --help`).
// The build reports its progress on one line instead of printing nothing for a minute.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const main = 'deploy/launcher/dist/main.js';
const wantsHelp = args.includes('--help') || args.includes('-h');
const skip = existsSync(main) && (process.env.EDGE_SKIP_BUILD === '1' || wantsHelp);
if (!skip) await build();
const child = spawn(process.execPath, [main, ...args], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 1));

/** Generates the gRPC types, then `tsc -b`, counting the workspaces tsc reports on. */
async function build() {
  const started = Date.now();
  const gen = spawnSync(process.execPath, ['libs/proto/scripts/gen.mjs'], { encoding: 'utf8' });
  if (gen.status !== 0) fail(`${gen.stdout}${gen.stderr}`);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const proc = spawn(process.execPath, [tsc, '-b', '--verbose'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const tty = Boolean(process.stderr.isTTY);
  let total = 0;
  let done = 0;
  let listing = false;
  const other = [];
  const show = () => tty && process.stderr.write(`\rbuilding: ${done} / ${total || '?'} workspaces\x1b[K`);
  let rest = '';
  const onData = (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (/ - Projects in this build:/.test(line)) listing = true;
      else if (listing && /^\s+\* /.test(line)) total++;
      else if (/ - Project '[^']+' /.test(line)) {
        listing = false;
        done++;
        show();
      } else if (!/^\S+ [AP]M - |^\d+:\d+:\d+ - |^\s*$/.test(line)) other.push(line);
    }
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  if (!tty) process.stderr.write('building (incremental tsc -b)…\n');
  const code = await new Promise((resolve) => proc.on('exit', resolve));
  if (tty) process.stderr.write('\r\x1b[K');
  if (code !== 0) fail(other.join('\n'));
  process.stderr.write(`built ${total} workspaces in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

function fail(output) {
  process.stderr.write(`${output}\nbuild failed\n`);
  process.exit(1);
}
