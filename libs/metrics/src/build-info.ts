/**
 * Which build a process runs: the version answered on `GET /version` and exported as
 * `edge_build_info`, so a dashboard and a client see the same.
 */

/** The controller's release (the `version` of `GET /version`, without its `v`). */
export const VERSION = '0.1.0';

/** What identifies a running build. */
export interface BuildInfo {
  /** `v<release>`, as `GET /version` answers it. */
  version: string;
  /** The source revision (EDGE_REVISION, set when an image is built), else `local`. */
  revision: string;
  /** When it was built (EDGE_BUILD_DATE), else the epoch. */
  buildDate: string;
  /** The Node.js version running it (`process.version`). */
  nodeVersion: string;
}

/** The build of this process, from the release and the environment an image sets. */
export function buildInfo(env: Record<string, string | undefined> = process.env): BuildInfo {
  return {
    version: `v${VERSION}`,
    revision: env.EDGE_REVISION || 'local',
    buildDate: env.EDGE_BUILD_DATE || new Date(0).toISOString(),
    nodeVersion: process.version,
  };
}
