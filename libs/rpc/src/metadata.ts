import * as grpc from '@grpc/grpc-js';
import { context, propagation, type Context } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import type { RequestContext } from './context.js';
import { PRINCIPAL_KEY, decodePrincipal, encodePrincipal } from './principal.js';

const REQUEST_ID = 'x-request-id';
const ACTOR = 'x-edge-actor';

/** Metadata for an outgoing call: request context plus the active trace context. */
export function outgoingMetadata(ctx: RequestContext, otelCtx: Context = context.active()): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set(REQUEST_ID, ctx.requestId);
  if (ctx.actorId) md.set(ACTOR, ctx.actorId);
  if (ctx.principal) md.set(PRINCIPAL_KEY, encodePrincipal(ctx.principal));
  const carrier: Record<string, string> = {};
  propagation.inject(otelCtx, carrier);
  for (const [k, v] of Object.entries(carrier)) md.set(k, v);
  return md;
}

/** The request and trace context of an incoming call. */
export function incomingContext(md: grpc.Metadata): { ctx: RequestContext; otelCtx: Context } {
  const str = (k: string) => {
    const v = md.get(k)[0];
    return typeof v === 'string' ? v : undefined;
  };
  const carrier: Record<string, string> = {};
  for (const [k, v] of Object.entries(md.getMap())) if (typeof v === 'string') carrier[k] = v;
  const principal = decodePrincipal(md.get(PRINCIPAL_KEY)[0]);
  return {
    ctx: { requestId: str(REQUEST_ID) ?? randomUUID(), actorId: str(ACTOR), ...(principal ? { principal } : {}) },
    otelCtx: propagation.extract(context.active(), carrier),
  };
}
