/**
 * Client `POST /posture-response` and `/posture-response-bulk`: what the caller's endpoint
 * reports (OS, domain, MAC addresses, processes, endpoint state), kept per API session by the
 * session service, which checks each response's fields.
 */
import { ZitiError } from '@edge/errors';
import { ok } from '@edge/envelope';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';

/** Registers the posture response routes under the client base path. */
export function registerPostureResponseRoutes(route: Router, base: string, clients: Clients): void {
  for (const [path, bulk] of [['posture-response', false], ['posture-response-bulk', true]] as const) {
    route('POST', `${base}/${path}`, 'session', async (req, principal) => {
      const body = req.body as unknown;
      const list = bulk ? body : [body];
      if (!Array.isArray(list) || (!bulk && (body === null || typeof body !== 'object' || Array.isArray(body)))) {
        throw new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: `the body must be a JSON ${bulk ? 'array' : 'object'}` });
      }
      const session = principal!.apiSession!;
      const r = await clients.session.submitPostureResponses({
        apiSessionId: session.id, identityId: session.identityId, responsesJson: list.map((x) => JSON.stringify(x)), bulk,
      });
      // As the specs: 201 for one response, 200 for a bulk body.
      return { status: bulk ? 200 : 201, body: ok({ services: r.servicesJson.map((s) => JSON.parse(s) as unknown) }) };
    });
  }
}
