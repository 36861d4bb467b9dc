/**
 * A small HTTPS client for end-to-end tests against a controller with a self-signed or
 * private-CA certificate, optionally checking every response against the official specs.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { EDGE_BASE_PATHS, type EdgeApi, type SpecValidator } from './spec-validator.js';

/** A completed HTTP exchange. */
export interface HttpResult {
  /** HTTP status code. */
  status: number;
  /** Response headers (lower-case names, as node reports them). */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the response is `application/json` (or `+json`), otherwise the text. */
  body: any;
  /** The raw response body decoded as UTF-8. */
  text: string;
}

/** Options of {@link createHttpClient}. */
export interface HttpClientOptions {
  /** Scheme, host and port (and optionally a path prefix), e.g. `https://127.0.0.1:1280`. */
  baseUrl: string;
  /** CA certificate(s) (PEM). When given the server certificate is verified against it; otherwise it is not verified. */
  ca?: string | Buffer;
  /** Client certificate (PEM) presented during the TLS handshake. */
  cert?: string;
  /** Private key (PEM) of `cert`. */
  key?: string;
  /** When given, every response on an Edge API path is checked with {@link SpecValidator.assertValid}. */
  validator?: SpecValidator;
}

/** Options of one request. */
export interface HttpRequestOptions {
  /** Sent as JSON (`content-type: application/json`). */
  body?: unknown;
  /** Sent as-is (default `content-type: application/json` unless `headers` sets one); wins over `body`. */
  rawBody?: string | Buffer;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** API session token, sent as the `zt-session` header. */
  session?: string;
  /** When given, a different status throws an error naming method, path, status and body. */
  expectStatus?: number;
  /** Skip the spec check of this response even when the client has a validator. */
  skipValidation?: boolean;
}

/** Shorthand for a request with a fixed method. */
export type HttpMethodShorthand = (path: string, opts?: HttpRequestOptions) => Promise<HttpResult>;

/** Client returned by {@link createHttpClient}. */
export interface HttpClient {
  /** Sends one request; `path` is appended to the base URL (include the API base path and query). */
  request(method: string, path: string, opts?: HttpRequestOptions): Promise<HttpResult>;
  /** `GET path`. */
  get: HttpMethodShorthand;
  /** `POST path`. */
  post: HttpMethodShorthand;
  /** `PUT path`. */
  put: HttpMethodShorthand;
  /** `PATCH path`. */
  patch: HttpMethodShorthand;
  /** `DELETE path`. */
  delete: HttpMethodShorthand;
  /** Destroys the keep-alive agent's sockets; call in `afterAll`. */
  close(): void;
}

const MAX_BODY_IN_ERROR = 2000;

/** The legacy prefix of the client API that older SDKs use. */
const LEGACY_CLIENT_BASE = '/edge/v1';

/**
 * The Edge API path a request path is answered on, query kept. The controller's client API is
 * the listener's default handler (OpenZiti controller/webapis/client-api.go): a path outside
 * `/edge`, `/fabric` and `/.well-known` is answered as `/edge/client/v1` + path (so `/` and
 * `/version` are the client API's version), `/edge/v1/...` as `/edge/client/v1/...`, and
 * `/.well-known/est/cacerts` by the client API. Any other path is returned as it is.
 */
export function edgeApiPath(path: string): string {
  const q = path.indexOf('?');
  const pathname = q < 0 ? path : path.slice(0, q);
  const query = q < 0 ? '' : path.slice(q);
  const client = EDGE_BASE_PATHS.client;
  const [, first = ''] = pathname.split('/');
  let served = pathname;
  if (pathname === '/.well-known/est/cacerts' || !/^(edge|fabric|\.well-known)/.test(first)) served = client + pathname;
  else if (pathname === LEGACY_CLIENT_BASE || pathname.startsWith(LEGACY_CLIENT_BASE + '/')) served = client + pathname.slice(LEGACY_CLIENT_BASE.length);
  return served + query;
}

/**
 * The Edge API a request path is answered by, for spec validation: `/edge/client/v1…` and the
 * root paths that {@link edgeApiPath} maps to it → client, `/edge/management/v1…` → management;
 * `undefined` otherwise (e.g. `/fabric/v1/...`).
 */
export function edgeApiForPath(path: string): EdgeApi | undefined {
  const pathname = edgeApiPath(path.split('?')[0]!);
  for (const api of ['client', 'management'] as const) {
    const base = EDGE_BASE_PATHS[api];
    if (pathname === base || pathname.startsWith(base + '/')) return api;
  }
  return undefined;
}

/**
 * Creates an HTTP(S) client with a keep-alive agent. With `ca` the server certificate must chain
 * to it (`rejectUnauthorized: true`); without it any certificate is accepted.
 */
export function createHttpClient(opts: HttpClientOptions): HttpClient {
  const base = new URL(opts.baseUrl);
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new https.Agent({
        keepAlive: true,
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        rejectUnauthorized: opts.ca !== undefined,
      })
    : new http.Agent({ keepAlive: true });
  const prefix = base.pathname.replace(/\/+$/, '');

  const request = async (method: string, path: string, ro: HttpRequestOptions = {}): Promise<HttpResult> => {
    const m = method.toUpperCase();
    const url = new URL(prefix + (path.startsWith('/') ? path : `/${path}`), base.origin);
    const fullPath = url.pathname + url.search;
    const headers: Record<string, string> = { accept: 'application/json' };
    let payload: Buffer | undefined;
    if (ro.rawBody !== undefined) {
      payload = Buffer.isBuffer(ro.rawBody) ? ro.rawBody : Buffer.from(ro.rawBody, 'utf8');
      headers['content-type'] = 'application/json';
    } else if (ro.body !== undefined) {
      payload = Buffer.from(JSON.stringify(ro.body), 'utf8');
      headers['content-type'] = 'application/json';
    }
    if (payload) headers['content-length'] = String(payload.length);
    if (ro.session !== undefined) headers['zt-session'] = ro.session;
    for (const [k, v] of Object.entries(ro.headers ?? {})) headers[k.toLowerCase()] = v;

    const result = await send(secure, agent, url, m, headers, payload);
    if (ro.expectStatus !== undefined && result.status !== ro.expectStatus) {
      throw new Error(
        `${m} ${fullPath}: expected status ${ro.expectStatus}, got ${result.status}\nbody: ${truncate(result.text)}`,
      );
    }
    // A root or legacy path is checked against the operation it is answered as.
    const served = edgeApiPath(fullPath);
    const api = edgeApiForPath(served);
    if (opts.validator && api && !ro.skipValidation) {
      opts.validator.assertValid(api, m, served, result.status, result.body);
    }
    return result;
  };

  const shorthand =
    (method: string): HttpMethodShorthand =>
    (path, ro) =>
      request(method, path, ro);

  return {
    request,
    get: shorthand('GET'),
    post: shorthand('POST'),
    put: shorthand('PUT'),
    patch: shorthand('PATCH'),
    delete: shorthand('DELETE'),
    close: () => agent.destroy(),
  };
}

function send(
  secure: boolean,
  agent: http.Agent,
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload: Buffer | undefined,
): Promise<HttpResult> {
  return new Promise((resolvePromise, reject) => {
    const req = (secure ? https : http).request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolvePromise({
          status: res.statusCode ?? 0,
          headers: { ...(res.headers as IncomingHttpHeaders) },
          body: parseBody(res.headers['content-type'], text),
          text,
        });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function parseBody(contentType: string | undefined, text: string): unknown {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const isJson = type === 'application/json' || type.endsWith('+json');
  if (!isJson || text.length === 0) return isJson ? undefined : text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function truncate(text: string): string {
  return text.length > MAX_BODY_IN_ERROR ? `${text.slice(0, MAX_BODY_IN_ERROR)}… (${text.length} chars)` : text;
}
