/**
 * The TLS client certificate a request came with, as certificate login and enrollment with a
 * CA-issued certificate read it.
 */
import type { FastifyRequest } from 'fastify';

/** The presented client certificate (the leaf) as PEM; '' when none was presented. */
export function clientCertPem(req: FastifyRequest): string {
  const socket = req.raw.socket as { getPeerCertificate?: (detailed: boolean) => { raw?: Buffer } };
  const raw = socket.getPeerCertificate?.(false)?.raw;
  if (!raw) return '';
  const b64 = raw.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

/**
 * Why the TLS layer did not verify the client certificate against the controller CA bundle it
 * was configured with ('' when it did). The handshake itself proved possession of the key; the
 * auth service decides what an error such as CERT_HAS_EXPIRED means under the auth policy.
 */
export function clientCertError(req: FastifyRequest): string {
  const socket = req.raw.socket as { authorized?: boolean; authorizationError?: Error | string | null };
  if (socket.authorized) return '';
  const e = socket.authorizationError;
  return (typeof e === 'string' ? e : (e as { code?: string } | null | undefined)?.code ?? e?.message) || 'UNVERIFIED';
}
