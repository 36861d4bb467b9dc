import * as grpc from '@grpc/grpc-js';
import { context, propagation, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import type { RequestContext } from './context.js';
import { PRINCIPAL_KEY, decodePrincipal, encodePrincipal } from './principal.js';

const REQUEST_ID = 'x-request-id';
const ACTOR = 'x-edge-actor';

/** The propagator writes the trace context (`traceparent`, …) straight into the call's metadata. */
const metadataSetter: TextMapSetter<grpc.Metadata> = {
  set: (md, key, value) => md.set(key, value),
};

/** The propagator reads the trace context from the call's metadata: text values only. */
const metadataGetter: TextMapGetter<grpc.Metadata> = {
  keys: (md) => Object.entries(md.getMap()).filter(([, v]) => typeof v === 'string').map(([k]) => k),
  get: (md, key) => text(md, key),
};

/** The first value of `key` when it is text (binary `-bin` values are not). */
function text(md: grpc.Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}

/** Metadata for an outgoing call: request context plus the active trace context. */
export function outgoingMetadata(ctx: RequestContext, otelCtx: Context = context.active()): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set(REQUEST_ID, ctx.requestId);
  if (ctx.actorId) md.set(ACTOR, ctx.actorId);
  if (ctx.principal) md.set(PRINCIPAL_KEY, encodePrincipal(ctx.principal));
  propagation.inject(otelCtx, md, metadataSetter);
  return md;
}

/** The request context of an incoming call: request id (a new one when it carries none), actor and principal. */
export function incomingRequestContext(md: grpc.Metadata): RequestContext {
  const ctx: RequestContext = { requestId: text(md, REQUEST_ID) ?? randomUUID(), actorId: text(md, ACTOR) };
  const principal = decodePrincipal(md.get(PRINCIPAL_KEY)[0]);
  if (principal) ctx.principal = principal;
  return ctx;
}

/**
 * `base` (by default the active context) with the trace context an incoming call carries; `base`
 * itself when it carries none.
 */
export function incomingTraceContext(md: grpc.Metadata, base: Context = context.active()): Context {
  return propagation.extract(base, md, metadataGetter);
}

/** The request and trace context of an incoming call. */
export function incomingContext(md: grpc.Metadata): { ctx: RequestContext; otelCtx: Context } {
  return { ctx: incomingRequestContext(md), otelCtx: incomingTraceContext(md) };
}
