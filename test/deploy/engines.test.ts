/**
 * The Node.js versions package.json's `engines` promises are ones every installed dependency
 * declares it supports (its own `engines.node`), and the images' base Node is among them.
 * Optional packages (platform-specific builds) are installed only where they fit, so they are left
 * out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/chart.js';

interface LockPackage { version?: string; optional?: boolean; engines?: { node?: string } | string[] }
const root = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };

/** Every locked dependency with a Node range of its own: name@version → range. */
function dependencyRanges(): Record<string, string> {
  const ranges: Record<string, string> = {};
  for (const [path, pkg] of Object.entries(lock.packages)) {
    const range = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
    if (!path.includes('node_modules/') || pkg.optional || !range) continue;
    ranges[`${path.slice(path.lastIndexOf('node_modules/') + 13)}@${pkg.version}`] = range;
  }
  return ranges;
}

describe('package.json engines', () => {
  it('promises only Node versions every dependency supports', () => {
    const ranges = dependencyRanges();
    expect(Object.keys(ranges).length).toBeGreaterThan(100);
    expect(semver.validRange(root.engines.node)).not.toBeNull();
    const narrower = Object.entries(ranges).filter(([, range]) => !semver.subset(root.engines.node, range, { includePrerelease: false }));
    expect(narrower.map(([dep, range]) => `${dep} needs node ${range}`)).toEqual([]);
  });

  it('is no narrower than the dependencies need: its lowest version is the lowest they all accept', () => {
    const lowest = semver.minVersion(root.engines.node)!;
    for (const range of Object.values(dependencyRanges())) expect(semver.satisfies(lowest, range), range).toBe(true);
    // One minor lower is refused by some dependency.
    const below = `${lowest.major}.${Math.max(lowest.minor - 1, 0)}.0`;
    expect(lowest.minor === 0 || Object.values(dependencyRanges()).some((r) => !semver.satisfies(below, r))).toBe(true);
  });

  it('includes the Node of every image', () => {
    const dir = join(REPO_ROOT, 'deploy/docker');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.Dockerfile'))) {
      const major = /^ARG NODE_IMAGE=node:(\d+)/m.exec(readFileSync(join(dir, file), 'utf8'))?.[1];
      expect(major, file).toBeDefined();
      // The tag follows the newest release of that major line.
      expect(semver.intersects(`${major}.x`, root.engines.node), file).toBe(true);
    }
  });
});
