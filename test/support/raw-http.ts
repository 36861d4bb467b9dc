/**
 * HTTP written onto a TLS connection byte for byte, for requests no HTTP client would send
 * (malformed lines, oversized headers, methods outside the API's).
 */
import { connect } from 'node:tls';
import type { RunningController } from '@edge/launcher';

/** An answer as read off the connection: its status, raw header block and body text. */
export interface RawAnswer {
  status: number;
  headers: string;
  text: string;
}

/** Writes `request` over TLS to the controller and reads the whole answer until the server closes. */
export function rawExchange(running: RunningController, request: string | Buffer): Promise<RawAnswer> {
  const url = new URL(running.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: running.caPem, servername: 'localhost', rejectUnauthorized: false }, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (b: Buffer) => chunks.push(b));
    socket.on('error', (err) => (chunks.length ? undefined : reject(err)));
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = all.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? '')?.[1]), headers: head ?? '', text: rest.join('\r\n\r\n') });
    });
  });
}

/** The value of header `name` in a raw header block, if present. */
export function rawHeader(answer: RawAnswer, name: string): string | undefined {
  const line = answer.headers.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}
