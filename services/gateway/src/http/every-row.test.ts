import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { continueAt, withEveryRow } from './every-row.js';

/** A list of `total` rows served as the owning service pages an every-row list: `size` at a time. */
function pages(req: FastifyRequest, total: number, size: number, opts: { encoded?: boolean; offset?: number; every?: boolean } = {}) {
  const offset = opts.offset ?? 0;
  const asked: number[] = [];
  const page = async () => {
    const from = offset + continueAt(req);
    asked.push(continueAt(req));
    const data = Array.from({ length: Math.max(0, Math.min(size, total - from)) }, (_, i) => ({ id: `r${from + i}` }));
    const body = { data, meta: { pagination: { limit: opts.every === false ? size : -1, offset, totalCount: total }, filterableFields: ['id'] } };
    return opts.encoded ? { body: Buffer.from(JSON.stringify(body)), contentType: 'application/json; charset=utf-8' } : { body };
  };
  return { page, asked };
}

const request = (query: Record<string, unknown> = {}) => ({ query }) as unknown as FastifyRequest;
const ids = (body: unknown) => (body as { data: Array<{ id: string }> }).data.map((d) => d.id);

describe('every-row lists', () => {
  it('runs the route again from where its rows end until it holds them all, in one envelope', async () => {
    const req = request({ limit: '-1' });
    const { page, asked } = pages(req, 1203, 500, { offset: 0 });
    const r = await withEveryRow(req, page);
    expect(asked).toEqual([0, 500, 1000]);
    expect(ids(r.body)).toEqual(Array.from({ length: 1203 }, (_, i) => `r${i}`));
    expect((r.body as { meta: unknown }).meta).toEqual({ pagination: { limit: -1, offset: 0, totalCount: 1203 }, filterableFields: ['id'] });
    expect(continueAt(req)).toBe(0);
  });

  it('counts from the offset asked', async () => {
    const req = request({ filter: 'true skip 700 limit none' });
    const { page, asked } = pages(req, 1203, 500, { offset: 700 });
    expect(ids((await withEveryRow(req, page)).body)).toHaveLength(503);
    expect(asked).toEqual([0, 500]);
  });

  it('reads back JSON a route answered encoded only when the request may ask for every row, and encodes the whole again', async () => {
    const asking = request({ limit: '-1' });
    const joined = await withEveryRow(asking, pages(asking, 600, 500, { encoded: true }).page);
    expect(ids(joined.body)).toHaveLength(600);
    expect(joined.contentType).toBeUndefined();
    const plain = request({ limit: '5' });
    const { page, asked } = pages(plain, 600, 500, { encoded: true });
    const as = await withEveryRow(plain, page);
    expect(Buffer.isBuffer(as.body)).toBe(true);
    expect(asked).toEqual([0]);
  });

  it('leaves any other answer as it is, and stops at an empty page or after as many pages as the rows fill', async () => {
    const req = request({ limit: '-1' });
    const paged = pages(req, 1203, 500, { every: false });
    expect(ids((await withEveryRow(req, paged.page)).body)).toHaveLength(500);
    expect(paged.asked).toEqual([0]);
    // Rows gone meanwhile: an empty page ends it.
    let calls = 0;
    const shrinking = async () => {
      calls++;
      const data = calls === 1 ? [{ id: 'a' }] : [];
      return { body: { data, meta: { pagination: { limit: -1, offset: 0, totalCount: 900 } } } };
    };
    expect(ids((await withEveryRow(req, shrinking)).body)).toEqual(['a']);
    expect(calls).toBe(2);
    // A service that keeps answering the same short page is asked a bounded number of times.
    calls = 0;
    const stuck = async () => {
      calls++;
      return { body: { data: [{ id: 'x' }, { id: 'y' }], meta: { pagination: { limit: -1, offset: 0, totalCount: 7 } } } };
    };
    await withEveryRow(req, stuck);
    expect(calls).toBeLessThanOrEqual(5);
  });
});
