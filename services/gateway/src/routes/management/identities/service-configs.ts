/**
 * Management `/identities/{id}/service-configs`: an identity's own configs for services, which
 * replace the service's config of the same type when that identity lists its services. The
 * services and configs belong to the policy service, which is asked that they exist (and for
 * each config's type) and that the configs' types target services; the assignments belong to
 * the identity service.
 */
import { entityRef, empty, ok } from '@edge/envelope';
import { ZitiError, isZitiError } from '@edge/errors';
import { parseBody, z } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { everyRow } from '../../shared/list.js';

/** `serviceConfigsAssignList`. */
const assignList = z.array(z.object({ serviceId: z.string().min(1).max(1000), configId: z.string().min(1).max(1000) })).max(1000);

const idIn = (ids: string[]) => (ids.length ? `id in [${ids.map((i) => JSON.stringify(i)).join(', ')}]` : 'false');

/** A referenced service or config that does not exist is a 400 naming its place in the body. */
async function mustExist<T>(field: string, id: string, get: () => Promise<T>): Promise<T> {
  try {
    return await get();
  } catch (err) {
    if (isZitiError(err) && err.code === 'NOT_FOUND') {
      throw new ZitiError('REFERENCED_ENTITY_NOT_FOUND', { cause: { field, reason: 'not found', value: id } });
    }
    throw err;
  }
}

/** Registers the identity service config routes under the management base path. */
export function registerIdentityServiceConfigRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/identities/:id/service-configs`;

  route('GET', url, 'admin', async (req) => {
    const { configs } = await clients.identity.listServiceConfigs({ identityId: idParam(req.params), configs: [] });
    const [services, cfgs] = await Promise.all([
      everyRow(idIn([...new Set(configs.map((c) => c.serviceId))]), async (query) => {
        const page = await clients.policy.listServices({ query, configTypes: [] });
        return { rows: page.services, meta: page.meta };
      }),
      everyRow(idIn([...new Set(configs.map((c) => c.configId))]), async (query) => {
        const page = await clients.policy.listConfigs({ query });
        return { rows: page.configs, meta: page.meta };
      }),
    ]);
    const serviceName = new Map(services.map((s) => [s.id, s.name]));
    const configName = new Map(cfgs.map((c) => [c.id, c.name]));
    return {
      body: ok(configs.map((c) => ({
        serviceId: c.serviceId, service: entityRef('services', 'services', c.serviceId, serviceName.get(c.serviceId) ?? ''),
        configId: c.configId, config: entityRef('configs', 'configs', c.configId, configName.get(c.configId) ?? ''),
      }))),
    };
  });

  route('POST', url, 'admin', async (req) => {
    const pairs = parseBody(assignList, req.body);
    const configs = await Promise.all(pairs.map(async (p, i) => {
      await mustExist(`[${i}].serviceId`, p.serviceId, () => clients.policy.getService({ id: p.serviceId, configTypes: [] }));
      const config = await mustExist(`[${i}].configId`, p.configId, () => clients.policy.getConfig({ id: p.configId }));
      return { serviceId: p.serviceId, configId: p.configId, configTypeId: config.configTypeId };
    }));
    await clients.policy.checkConfigs({ configIds: pairs.map((p) => p.configId), holder: 'identityServiceConfigs' });
    await clients.identity.assignServiceConfigs({ identityId: idParam(req.params), configs });
    return { body: empty() };
  }, { body: assignList });

  route('DELETE', url, 'admin', async (req) => {
    const pairs = req.body === undefined || req.body === null || req.body === '' ? [] : parseBody(assignList, req.body);
    await clients.identity.removeServiceConfigs({ identityId: idParam(req.params), configs: pairs.map((p) => ({ ...p, configTypeId: '' })) });
    return { body: empty() };
  }, { body: assignList });
}
