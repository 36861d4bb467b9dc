/**
 * Which names the HTTPS server certificate must carry: loopback always, plus every host the
 * controller is configured to be reached at.
 */
import { isIP } from 'node:net';

/** The configuration the server certificate's names come from (a slice of `Config.http`). */
export interface HttpHosts {
  /** host:port the HTTPS listener binds. */
  addr: string;
  /** host:port clients are told to use (enrollment JWT `iss`, `apiBaseUrls`). */
  advertisedAddress: string;
  /** Extra names, each an IP address or a DNS name. */
  tlsSans: string[];
}

/** Subject alternative names split by kind, normalised and de-duplicated. */
export interface SubjectAltNames {
  dns: string[];
  ips: string[];
}

/** Always present, so local tools and the standalone controller can reach the listener. */
const LOOPBACK: readonly string[] = ['localhost', '127.0.0.1', '::1'];
/** Wildcard addresses name no host. */
const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** The host part of `host:port` or `[v6]:port`. */
export function hostOf(address: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) return bracketed[1]!;
  const colon = address.lastIndexOf(':');
  return colon > 0 && isIP(address) !== 6 ? address.slice(0, colon) : address;
}

/** An IP in canonical text form (IPv6 compressed, lower case), or a DNS name in lower case. */
export function normaliseName(name: string): string {
  const trimmed = name.trim();
  if (isIP(trimmed) === 6) return new URL(`http://[${trimmed}]/`).hostname.slice(1, -1);
  return trimmed.toLowerCase();
}

/** Every name the server certificate must carry for this configuration. */
export function requiredServerNames(hosts: HttpHosts): SubjectAltNames {
  // Advertised host first: the certificate's CN is the first DNS name.
  const names = new Set<string>();
  // The advertised address defaults to the bind address, so either may be a wildcard.
  for (const address of [hosts.advertisedAddress, hosts.addr]) {
    const host = normaliseName(hostOf(address));
    if (!UNSPECIFIED.has(host)) names.add(host);
  }
  for (const name of LOOPBACK) names.add(name);
  for (const san of hosts.tlsSans) if (san.trim() !== '') names.add(normaliseName(san));
  const all = [...names].map(normaliseName);
  return {
    dns: [...new Set(all.filter((n) => isIP(n) === 0))],
    ips: [...new Set(all.filter((n) => isIP(n) !== 0))],
  };
}

/** All names of `sans` in one list (DNS names first), the form stored with the certificate. */
export function flattenNames(sans: SubjectAltNames): string[] {
  return [...sans.dns, ...sans.ips];
}

/** True when every required name is among `present` (compared after normalisation). */
export function coversNames(present: readonly string[], required: SubjectAltNames): boolean {
  const have = new Set(present.map(normaliseName));
  return flattenNames(required).every((n) => have.has(n));
}
