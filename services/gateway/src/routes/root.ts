/**
 * Routes that need no session: version information, the CA bundle for EST, capabilities.
 */
import type { Config } from '@edge/config';
import { ok } from '@edge/envelope';
import { buildInfo } from '@edge/metrics';
import type { Clients } from '../clients.js';
import type { Router } from '../http/route.js';

export const CLIENT_BASE = '/edge/client/v1';
export const MANAGEMENT_BASE = '/edge/management/v1';
export { VERSION } from '@edge/metrics';

/** Capabilities this controller really serves (OIDC_AUTH only once OIDC login exists). */
export const CAPABILITIES: string[] = [];

/** The `data` of the version answer: SDKs use `apiVersions.edge.v1.path` as their prefix. */
export function versionData(config: Config) {
  const base = `https://${config.http.advertisedAddress}`;
  const api = (path: string) => ({ v1: { path, version: '1', apiBaseUrls: [`${base}${path}`] } });
  const build = buildInfo();
  return {
    version: build.version,
    revision: build.revision,
    buildDate: build.buildDate,
    runtimeVersion: build.nodeVersion,
    capabilities: CAPABILITIES,
    apiVersions: {
      edge: api(CLIENT_BASE),
      'edge-client': api(CLIENT_BASE),
      'edge-management': api(MANAGEMENT_BASE),
    },
  };
}

/**
 * Registers the public routes under both base paths; the root paths (`/`, `/version`,
 * `/.well-known/est/cacerts`) are the client API's, served by the default-API rewrite.
 */
export function registerRootRoutes(route: Router, config: Config, clients: Clients): void {
  const version = async () => ({ body: ok(versionData(config)) });
  const cacerts = async () => {
    const { pkcs7Base64 } = await clients.pki.getCaCerts({});
    return { body: pkcs7Base64.replace(/(.{64})/g, '$1\n').trimEnd() + '\n', contentType: 'application/pkcs7-mime', headers: { 'content-transfer-encoding': 'base64' } };
  };
  const capabilities = async () => ({ body: ok(CAPABILITIES) });

  for (const base of [CLIENT_BASE, MANAGEMENT_BASE]) {
    route('GET', base, 'public', version);
    route('GET', `${base}/`, 'public', version);
    route('GET', `${base}/version`, 'public', version);
    route('GET', `${base}/.well-known/est/cacerts`, 'public', cacerts);
    route('GET', `${base}/enumerated-capabilities`, 'public', capabilities);
  }
  // The edge protocols this controller listens with: its HTTPS APIs at the advertised address.
  route('GET', `${CLIENT_BASE}/protocols`, 'public', async () => ({ body: ok({ https: { address: config.http.advertisedAddress } }) }));
}
