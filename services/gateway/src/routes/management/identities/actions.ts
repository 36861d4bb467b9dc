/**
 * Management actions on one identity beyond CRUD: removing its MFA, disabling and enabling it,
 * tracing its traffic.
 */
import { fieldError } from '@edge/errors';
import { empty, ok } from '@edge/envelope';
import { parseBody, parseGoDuration, z } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';

type Params = { id: string };

/** `disableParams`: minutes, 0 meaning until enabled. */
const disableParams = z.object({ durationMinutes: z.number().int().min(0).max(1_000_000_000) });

/** `traceSpec`. */
const traceSpec = z.object({
  enabled: z.boolean().nullable().optional(),
  duration: z.string().max(100).nullable().optional(),
  traceId: z.string().max(100).nullable().optional(),
  channels: z.array(z.string().max(100)).max(100).nullable().optional(),
});

/** Registers the identity actions under the management base path. */
export function registerIdentityActionRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/identities/:id`;

  route('DELETE', `${url}/mfa`, 'admin', async (req) => {
    await clients.auth.removeIdentityMfa({ identityId: (req.params as Params).id });
    return { body: empty() };
  });

  route('POST', `${url}/disable`, 'admin', async (req) => {
    const { durationMinutes } = parseBody(disableParams, req.body);
    await clients.identity.disableIdentity({ id: (req.params as Params).id, durationMinutes });
    return { body: empty() };
  }, { body: disableParams });

  route('POST', `${url}/enable`, 'admin', async (req) => {
    await clients.identity.enableIdentity({ id: (req.params as Params).id });
    return { body: empty() };
  });

  route('PUT', `${url}/trace`, 'admin', async (req) => {
    const spec = parseBody(traceSpec, req.body);
    const durationMs = spec.enabled ? parseGoDuration(spec.duration ?? '') : 0;
    if (durationMs === undefined) throw fieldError('duration', 'must be a duration such as 10m or 1h30m', spec.duration);
    const t = await clients.identity.updateIdentityTracing({
      id: (req.params as Params).id, enabled: spec.enabled ?? false, durationMs, traceId: spec.traceId ?? '', channels: spec.channels ?? [],
    });
    return { body: ok({ enabled: t.enabled, traceId: t.traceId, ...(t.until ? { until: t.until } : {}) }) };
  }, { body: traceSpec });
}
