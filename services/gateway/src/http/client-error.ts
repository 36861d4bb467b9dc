/**
 * Requests Node's HTTP parser refuses before fastify sees them (headers over the size limit, a
 * malformed request line or header, a request not received in time) are answered with the
 * OpenZiti error envelope too, written straight onto the connection, which then closes.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ZitiError } from '@edge/errors';
import { error as errorEnvelope } from '@edge/envelope';
import type { Logger } from '@edge/logging';
import { processMetrics, UNMATCHED_ROUTE } from '@edge/metrics';
import { REQUEST_ID_HEADER } from './request-log.js';

/** The OpenZiti error for a parser error code (llhttp `HPE_*`, or Node's request timeout). */
export function clientErrorOf(code: string | undefined): ZitiError {
  if (code === 'HPE_HEADER_OVERFLOW') return new ZitiError('REQUEST_HEADER_FIELDS_TOO_LARGE');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ZitiError('REQUEST_TIMEOUT');
  return new ZitiError('COULD_NOT_VALIDATE', { causeMessage: 'the HTTP request is malformed' });
}

/**
 * A complete HTTP/1.1 response carrying the envelope of `e` and, like every answer, its request
 * id in `x-request-id`, closing the connection.
 */
export function rawErrorResponse(e: ZitiError, requestId: string): string {
  const body = JSON.stringify(errorEnvelope(e, requestId));
  return [
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? 'Error'}`,
    'Content-Type: application/json',
    `${REQUEST_ID_HEADER}: ${requestId}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** fastify's `clientErrorHandler` (the server's `clientError` event), logging what it answers. */
export function createClientErrorHandler(log: Logger) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    // A response already under way on this connection cannot be followed by another one.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy(err);
      return;
    }
    const e = clientErrorOf(err.code);
    const reqId = randomUUID();
    socket.end(rawErrorResponse(e, reqId));
    // Refused before a method or route was known: counted with the requests no route matched.
    processMetrics().httpRequest('other', UNMATCHED_ROUTE, e.status, 0);
    const remoteAddress = (socket as Duplex & { remoteAddress?: string }).remoteAddress;
    log.info({ reqId, route: UNMATCHED_ROUTE, status: e.status, errorCode: e.code, parserError: err.code, remoteAddress }, 'request refused by the HTTP parser');
  };
}
