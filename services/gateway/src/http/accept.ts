/**
 * Content negotiation on `Accept`. OpenZiti's runtime (go-openapi) answers a request whose
 * Accept names nothing the operation produces with a 406 validation error on the `Accept`
 * header, which controller/env/helpers.go ServeError turns into COULD_NOT_VALIDATE with that
 * status (tests/api_error_test.go: `POST /enroll` accepting only application/x-pem-file).
 */
import type { FastifyRequest } from 'fastify';
import { Codes, ZitiError } from '@edge/errors';

/** COULD_NOT_VALIDATE with the status go-openapi gives an unacceptable response format. */
const NOT_ACCEPTABLE = { ...Codes.COULD_NOT_VALIDATE, status: 406 };

/** The media ranges of `Accept` the client takes (q > 0), lower case; undefined without one. */
export function acceptedRanges(req: FastifyRequest): string[] | undefined {
  const header = req.headers.accept;
  if (header === undefined || header.trim() === '') return undefined;
  return header.split(',').flatMap((part) => {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return range && !(q && Number(q.slice(2)) === 0) ? [range] : [];
  });
}

/** True when `range` (`*\/*`, `type/*` or exact) covers `mediaType`. */
function covers(range: string, mediaType: string): boolean {
  if (range === '*/*' || range === mediaType) return true;
  return range.endsWith('/*') && mediaType.startsWith(range.slice(0, -1));
}

/** Throws 406 unless the client accepts one of `produces` (no Accept accepts anything). */
export function requireAcceptable(req: FastifyRequest, produces: readonly string[]): void {
  const ranges = acceptedRanges(req);
  if (!ranges || ranges.some((r) => produces.some((p) => covers(r, p)))) return;
  const reason = `unsupported media type requested, only [${produces.join(' ')}] are available`;
  throw new ZitiError(NOT_ACCEPTABLE, { cause: { field: 'Accept', reason, value: req.headers.accept }, causeMessage: `Accept: ${reason}` });
}
