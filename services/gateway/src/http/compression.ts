/**
 * gzip for large JSON answers, to the clients that accept it: the SDKs do (the C SDK's HTTP
 * client sends `Accept-Encoding: gzip, deflate`, Go's sends `gzip`) and so do browsers. A
 * client's page of a hundred services is ~90 KB of repetitive JSON that compresses about tenfold,
 * and writing it through TLS is most of what serving a held page costs. An answer sent again as
 * the same bytes (a held page) is compressed once: the compressed copy is kept beside the buffer
 * for as long as the buffer lives.
 */
import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Smaller answers go as they are: compressing them saves less than it costs. */
const GZIP_MIN_BYTES = 8 * 1024;

const compressed = new WeakMap<Buffer, Buffer>();
// In the thread pool: a page of every row (`limit=-1`) can be megabytes, which must not hold the event loop.
const gzipped = promisify(gzip);

/** True when an `Accept-Encoding` value accepts gzip (by name or `*`, with a q above 0). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return false;
  let star = false;
  for (const part of value.split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.map((p) => /^q\s*=\s*([0-9.]+)$/.exec(p)?.[1]).find((v) => v !== undefined);
    const accepted = q === undefined || Number(q) > 0;
    if (name === 'gzip' || name === 'x-gzip') return accepted;
    if (name === '*') star = accepted;
  }
  return star;
}

/** The bytes to send for `payload`: gzipped, with its headers set, when it is large JSON and the client accepts gzip. */
export async function encodeFor(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (!Buffer.isBuffer(payload) || payload.length < GZIP_MIN_BYTES) return payload;
  if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
  reply.header('vary', 'accept-encoding');
  if (!acceptsGzip(req.headers['accept-encoding'])) return payload;
  let gz = compressed.get(payload);
  if (!gz) {
    gz = await gzipped(payload, { level: constants.Z_BEST_SPEED });
    compressed.set(payload, gz);
  }
  reply.header('content-encoding', 'gzip');
  return gz;
}
