/**
 * Request bodies: JSON and PEM text, parsed once for every route. An empty body is no body (as
 * generated clients send body-less POSTs with `Content-Type: application/json`); JSON nested
 * deeper than anything the APIs take, and NUL characters, which no store can hold, are refused
 * here with the field named, before any handler or service sees them.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ZitiError, fieldError } from '@edge/errors';

/** Deeper than any document of the APIs (config data included); far below any recursion limit. */
export const MAX_JSON_DEPTH = 100;

const PEM_TYPES = ['text/plain', 'application/x-pem-file', 'application/pkcs10'];

/** True when `text` opens more than `max` arrays or objects inside one another. */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) return true;
    } else if (ch === 0x5d || ch === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * The first field of a parsed JSON value holding a NUL character (`tags.env`, `roleAttributes.1`,
 * named as body validation names fields); a key with one names the object holding it. Undefined
 * when there is none.
 */
export function fieldWithNul(value: unknown): { field: string; reason: string } | undefined {
  const stack: Array<[unknown, string[]]> = [[value, []]];
  const name = (path: string[]) => path.join('.') || '(body)';
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { field: name(path), reason: 'must not contain a NUL character' };
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return { field: name(path), reason: 'a name in it contains a NUL character' };
        stack.push([child, [...path, k]]);
      }
    }
  }
  return undefined;
}

/** Replaces fastify's JSON parser and adds the PEM text one. */
export function installBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (req: FastifyRequest, body: string | Buffer, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: `the body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels` }), undefined);
    }
    parseJson(req, text, (err: Error | null, value?: unknown) => {
      if (err) return done(err, undefined);
      // a NUL can only come from a \u0000 escape (raw control characters are not JSON)
      const nul = text.includes('\\u0000') ? fieldWithNul(value) : undefined;
      if (nul) return done(fieldError(nul.field, nul.reason), undefined);
      done(null, value);
    });
  });
  // PEM bodies (CSRs, certificates) arrive as text for enrollment and CA verification.
  app.addContentTypeParser(PEM_TYPES, { parseAs: 'string', bodyLimit }, (_req, body: string | Buffer, done) => {
    const text = body.toString();
    if (text.includes('\u0000')) return done(new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: 'the body contains a NUL character' }), undefined);
    done(null, text);
  });
}
