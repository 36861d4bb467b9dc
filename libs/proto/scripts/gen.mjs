// Generates TypeScript types for every .proto under <repo>/proto into src/gen (git-ignored).
// Skips the work when no .proto is newer than the last generation.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, existsSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');
const protoRoot = join(pkg, '..', '..', 'proto');
const out = join(pkg, 'src', 'gen');
const stamp = join(out, '.stamp');

const files = [];
(function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.proto')) files.push(p);
  }
})(protoRoot);

const newest = Math.max(...files.map((f) => statSync(f).mtimeMs), statSync(fileURLToPath(import.meta.url)).mtimeMs);
if (existsSync(stamp) && statSync(stamp).mtimeMs >= newest) process.exit(0);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const require = createRequire(import.meta.url);
const bin = require.resolve('@grpc/proto-loader/build/bin/proto-loader-gen-types.js');
execFileSync(process.execPath, [
  bin, '--longs=Number', '--enums=String', '--defaults', '--oneofs', '--grpcLib=@grpc/grpc-js',
  '--includeDirs', protoRoot, '--outDir', out, ...files.map((f) => relative(protoRoot, f)),
], { stdio: 'inherit', cwd: protoRoot });

// The generator writes extensionless relative imports; NodeNext ESM needs ".js".
const fix = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) fix(p);
    else if (p.endsWith('.ts')) {
      const src = execFileSync('cat', [p]).toString();
      const fixed = src.replace(/from '(\.{1,2}\/[^']+?)'/g, (m, s) => (s.endsWith('.js') ? m : `from '${s}.js'`));
      writeFileSync(p, fixed);
    }
  }
};
fix(out);

// One index.ts per proto package directory so callers can `import type * as identity`.
const index = (dir) => {
  const entries = readdirSync(dir, { withFileTypes: true });
  const ts = entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && e.name !== 'index.ts');
  if (ts.length && dir !== out) {
    writeFileSync(join(dir, 'index.ts'), ts.map((e) => `export type * from './${e.name.replace(/\.ts$/, '.js')}';`).join('\n') + '\n');
  }
  for (const e of entries) if (e.isDirectory()) index(join(dir, e.name));
};
index(out);
writeFileSync(stamp, String(Date.now()));
