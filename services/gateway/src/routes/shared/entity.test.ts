import { describe, expect, it } from 'vitest';
import { baseEntity, withFields } from './entity.js';

describe('an entity with its own fields', () => {
  const e = { id: 'svc1', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z', tagsJson: '{"team":"blue"}' };

  it('renders the baseEntity fields first, then its own, as the spread it replaces did', () => {
    const spread = { ...baseEntity(e, 'services', ['configs']), name: 'web', tags: { overridden: true } };
    const built = withFields(baseEntity(e, 'services', ['configs']), { name: 'web', tags: { overridden: true } });
    expect(JSON.stringify(built)).toBe(JSON.stringify(spread));
    expect(Object.keys(built)).toEqual(['id', 'createdAt', 'updatedAt', '_links', 'tags', 'name']);
  });

  it('links itself and its nested collections', () => {
    expect(baseEntity(e, 'services', ['configs', 'edge-routers'])._links).toEqual({
      self: { href: './services/svc1' }, configs: { href: './services/svc1/configs' }, 'edge-routers': { href: './services/svc1/edge-routers' },
    });
  });
});
