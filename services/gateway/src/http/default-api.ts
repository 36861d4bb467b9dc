/**
 * The Edge Client API is the default handler of the listener, as in OpenZiti
 * (controller/webapis/client-api.go, `IsDefault` and its URL translation): the C SDK and
 * tunnelers log in on the bare controller URL (`POST /authenticate?method=cert`,
 * `GET /current-api-session`), and older SDKs use the legacy `/edge/v1` prefix. So, before
 * routing, a path outside `/edge`, `/fabric` and `/.well-known` is served as `/edge/client/v1`
 * + path (`GET /` and `/version` answer the version), `/edge/v1/...` as `/edge/client/v1/...`,
 * and `/.well-known/est/cacerts` as the client API's.
 */
import { CLIENT_BASE } from '../routes/root.js';

/** Paths not handed to the client API (controller/webapis/versions.go RestApiRootPath, Fabric). */
const OWN_ROOTS = ['/edge', '/fabric', '/.well-known'];
const LEGACY_CLIENT_BASE = '/edge/v1';
const WELL_KNOWN_EST_CACERTS = '/.well-known/est/cacerts';

/** The path a request path is served as. */
export function servedPath(path: string): string {
  // Duplicate slashes and a trailing one are ignored, as OpenZiti's router looks routes up by the
  // cleaned path (go-openapi's Lookup(path.Clean(path))): `//x` and `/x/` are `/x`. The admin
  // console (ZAC) reads every entity and related list as `/<type>/<id>/<list>/?limit=...`.
  let p = path.includes('//') ? path.replace(/\/{2,}/g, '/') : path;
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  if (p === WELL_KNOWN_EST_CACERTS) return CLIENT_BASE + p;
  if (!OWN_ROOTS.some((root) => p.startsWith(root))) return CLIENT_BASE + p;
  if (p === LEGACY_CLIENT_BASE || p.startsWith(`${LEGACY_CLIENT_BASE}/`)) return CLIENT_BASE + p.slice(LEGACY_CLIENT_BASE.length);
  return p;
}

/** fastify's `rewriteUrl`: the URL with its path served as {@link servedPath} says, query kept. */
export function rewriteToDefaultApi(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? servedPath(url) : servedPath(url.slice(0, q)) + url.slice(q);
}
