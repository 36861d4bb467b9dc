import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql, type Generated } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDb, dropSchema, isForeignKeyViolation, isUniqueViolation, migrate, openConnection, precompiled,
  quoteSchemaName, type DbConnection,
} from './index.js';
import { processMetrics } from '@edge/metrics';

const DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface TestDb {
  items: { id: string; name: string; size: number | null; created_at: Generated<Date> };
  tags: { item_id: string; tag: string };
}

const MIGRATIONS = {
  '001_items.sql': `
    create table items (id text primary key, name text not null, size int8,
      created_at timestamptz not null default now());
    create unique index items_name_key on items (name);`,
  '002_tags.sql': `create table tags (item_id text not null references items (id), tag text not null);`,
  'README.md': 'not a migration',
};

let migrationsDir: string;

beforeAll(async () => {
  migrationsDir = await mkdtemp(join(tmpdir(), 'edge-db-migrations-'));
  for (const [name, text] of Object.entries(MIGRATIONS)) await writeFile(join(migrationsDir, name), text);
});

afterAll(async () => {
  await rm(migrationsDir, { recursive: true, force: true });
});

function uniqueSchema(label: string): string {
  return `test_db_${label}_${randomBytes(4).toString('hex')}`;
}

const backends: Array<[string, () => Promise<DbConnection>]> = [
  ['postgres', () => openConnection({ url: DATABASE_URL, poolSize: 4 })],
  ['pglite', () => openConnection({ dataDir: ':memory:' })],
];

describe.each(backends)('on %s', (kind, open) => {
  let conn: DbConnection;
  const schema = uniqueSchema(kind);
  const raceSchema = uniqueSchema(`${kind}_race`);

  beforeAll(async () => {
    conn = await open();
  });

  afterAll(async () => {
    await dropSchema(conn, schema);
    await dropSchema(conn, raceSchema);
    await conn.close();
  });

  it('applies migrations once and is idempotent on a second run', async () => {
    expect(await migrate(conn, schema, migrationsDir)).toEqual(['001_items.sql', '002_tags.sql']);
    expect(await migrate(conn, schema, migrationsDir)).toEqual([]);
    const db = createDb<{ migrations: { name: string; applied_at: Date } }>(conn, schema);
    const rows = await db.selectFrom('migrations').selectAll().orderBy('name').execute();
    expect(rows.map((r) => r.name)).toEqual(['001_items.sql', '002_tags.sql']);
    expect(rows[0].applied_at).toBeInstanceOf(Date);
  });

  it('lets two concurrent migrations of one schema both succeed, applying each file once', async () => {
    const second = kind === 'postgres' ? await open() : conn;
    try {
      const results = await Promise.all([
        migrate(conn, raceSchema, migrationsDir),
        migrate(second, raceSchema, migrationsDir),
      ]);
      expect(results.flat().sort()).toEqual(['001_items.sql', '002_tags.sql']);
    } finally {
      if (second !== conn) await second.close();
    }
  });

  it('addresses tables in the given schema, int8 as number and timestamptz as Date', async () => {
    const db = createDb<TestDb>(conn, schema);
    await db.insertInto('items').values({ id: 'i1', name: 'one', size: 42 }).execute();
    const row = await db.selectFrom('items').selectAll().where('id', '=', 'i1').executeTakeFirstOrThrow();
    expect(row.size).toBe(42);
    expect(row.created_at).toBeInstanceOf(Date);
    const count = await db.selectFrom('items').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(count.n).toBe(1);
    const updated = await db.updateTable('items').set({ size: 43 }).where('id', '=', 'i1').executeTakeFirstOrThrow();
    expect(updated.numUpdatedRows).toBe(1n);
  });

  it('commits a transaction', async () => {
    const db = createDb<TestDb>(conn, schema);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ id: 'c1', name: 'committed' }).execute();
      await trx.insertInto('tags').values({ item_id: 'c1', tag: 'a' }).execute();
    });
    const tags = await db.selectFrom('tags').select('tag').where('item_id', '=', 'c1').execute();
    expect(tags).toEqual([{ tag: 'a' }]);
  });

  it('counts every statement it sends in the process metrics, transaction control included', async () => {
    const count = async (operation: string) => {
      const metric = await processMetrics().registry.getSingleMetric('edge_db_statements_total')?.get();
      return metric?.values.find((v) => v.labels.operation === operation)?.value ?? 0;
    };
    const before = { select: await count('select'), insert: await count('insert'), begin: await count('begin'), commit: await count('commit') };
    const db = createDb<TestDb>(conn, schema);
    await db.selectFrom('items').select('id').execute();
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ id: 'n1', name: 'counted' }).execute();
      await trx.selectFrom('items').select('id').where('id', '=', 'n1').execute();
    });
    expect(await count('select')).toBe(before.select + 2);
    expect(await count('insert')).toBe(before.insert + 1);
    expect(await count('begin')).toBe(before.begin + 1);
    expect(await count('commit')).toBe(before.commit + 1);
  });

  it('runs a precompiled query with new arguments each time, in its schema and in a transaction', async () => {
    const db = createDb<TestDb>(conn, schema);
    await db.insertInto('items').values([{ id: 'pc1', name: 'first', size: 1 }, { id: 'pc2', name: 'second', size: 2 }]).execute();
    const byIdAndSize = precompiled(2, (id: string, size: number) => db.selectFrom('items').select(['id', 'name']).where('id', '=', id).where('size', '=', size).where('name', '!=', 'never'));
    expect(await byIdAndSize(db, 'pc1', 1)).toEqual([{ id: 'pc1', name: 'first' }]);
    expect(await byIdAndSize(db, 'pc2', 2)).toEqual([{ id: 'pc2', name: 'second' }]);
    expect(await byIdAndSize(db, 'pc2', 1)).toEqual([]);
    expect(await db.transaction().execute((trx) => byIdAndSize(trx, 'pc1', 1))).toEqual([{ id: 'pc1', name: 'first' }]);
    // An argument that shapes the SQL instead of being bound cannot be reused.
    const shaped = precompiled(1, (column: string) => db.selectFrom('items').select(sql.ref(column).as('x')));
    await expect(shaped(db, 'name')).rejects.toThrow(/a bound parameter/);
    // An argument may be bound more than once.
    const twice = precompiled(1, (id: string) => db.selectFrom('items').select('id').where('id', '=', id).where(sql<boolean>`${id}::text is not null`));
    expect(await twice(db, 'pc2')).toEqual([{ id: 'pc2' }]);
  });

  it.runIf(kind === 'postgres')('runs a precompiled query as a statement the server keeps prepared, and unnamed once a migration changed its table', async () => {
    const one = await openConnection({ url: DATABASE_URL, poolSize: 1 });
    try {
      const db = createDb<TestDb>(one, schema);
      await db.insertInto('items').values({ id: 'np1', name: 'named', size: 7 }).execute();
      const whole = precompiled(1, (id: string) => db.selectFrom('items').selectAll().where('id', '=', id));
      expect(await whole(db, 'np1')).toMatchObject([{ id: 'np1', name: 'named', size: 7 }]);
      // The pool's one connection holds it under its name.
      const held = await sql<{ name: string }>`select name from pg_prepared_statements where statement like '%"np%' or statement like ${'%' + schema + '%'}`.execute(db);
      expect(held.rows.map((r) => r.name)).toEqual([expect.stringMatching(/^edge_/)]);
      // A newer replica's migration adds a column the prepared `select *` did not have.
      await sql.raw(`alter table ${quoteSchemaName(schema)}.items add column extra text`).execute(db);
      try {
        expect(await whole(db, 'np1')).toMatchObject([{ id: 'np1', name: 'named', extra: null }]);
        expect(await whole(db, 'np1')).toMatchObject([{ id: 'np1', extra: null }]);
      } finally {
        await sql.raw(`alter table ${quoteSchemaName(schema)}.items drop column extra`).execute(db);
      }
    } finally {
      await one.close();
    }
  });

  it('rolls back a transaction whose callback throws', async () => {
    const db = createDb<TestDb>(conn, schema);
    await expect(db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ id: 'r1', name: 'rolled back' }).execute();
      throw new Error('boom');
    })).rejects.toThrow('boom');
    expect(await db.selectFrom('items').select('id').where('id', '=', 'r1').execute()).toEqual([]);
  });

  it('recognises unique and foreign-key violations', async () => {
    const db = createDb<TestDb>(conn, schema);
    await db.insertInto('items').values({ id: 'u1', name: 'unique' }).execute();
    const dup = await db.insertInto('items').values({ id: 'u2', name: 'unique' }).execute().catch((e: unknown) => e);
    expect(isUniqueViolation(dup)).toEqual({ constraint: 'items_name_key' });
    expect(isForeignKeyViolation(dup)).toBeUndefined();
    const orphan = await db.insertInto('tags').values({ item_id: 'missing', tag: 'x' }).execute().catch((e: unknown) => e);
    expect(isForeignKeyViolation(orphan)?.constraint).toBe('tags_item_id_fkey');
    expect(isUniqueViolation(orphan)).toBeUndefined();
    expect(isUniqueViolation(new Error('plain'))).toBeUndefined();
  });

  it('leaves the connection open when a Kysely built on it is destroyed', async () => {
    const db = createDb<TestDb>(conn, schema);
    await db.destroy();
    const again = createDb<TestDb>(conn, schema);
    expect((await again.selectFrom('items').select('id').limit(1).execute()).length).toBe(1);
  });
});

describe('on postgres', () => {
  it('compiles no statement just in time (a many-branched read would cost a second on a new deployment)', async () => {
    const conn = await openConnection({ url: DATABASE_URL });
    try {
      const db = createDb<TestDb>(conn, 'public');
      expect((await sql<{ jit: string }>`show jit`.execute(db)).rows[0]!.jit).toBe('off');
    } finally {
      await conn.close();
    }
  });
});

describe('on pglite', () => {
  it('makes queries from other services wait while a transaction holds the session', async () => {
    const conn = await openConnection({ dataDir: ':memory:' });
    const schema = 'interleave';
    try {
      await migrate(conn, schema, migrationsDir);
      const writer = createDb<TestDb>(conn, schema);
      const reader = createDb<TestDb>(conn, schema);
      const events: string[] = [];
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => { entered = resolve; });
      const tx = writer.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 'w1', name: 'written' }).execute();
        entered();
        await new Promise((resolve) => setTimeout(resolve, 50));
        events.push('commit');
      });
      await inside;
      const read = reader.selectFrom('items').select('id').execute().then((rows) => {
        events.push('read');
        return rows;
      });
      const [, rows] = await Promise.all([tx, read]);
      expect(events).toEqual(['commit', 'read']);
      expect(rows).toEqual([{ id: 'w1' }]);
    } finally {
      await conn.close();
    }
  });

  describe('a holder idle past the limit', () => {
    let conn: DbConnection;
    let db: ReturnType<typeof createDb<TestDb>>;
    beforeAll(async () => {
      conn = await openConnection({ dataDir: ':memory:', idleSessionTimeoutMs: 300 });
      await migrate(conn, 'idle', migrationsDir);
      db = createDb<TestDb>(conn, 'idle');
    });
    afterAll(async () => conn?.close());
    const ids = async () => (await db.selectFrom('items').select('id').orderBy('id').execute()).map((r) => r.id);

    // Regression: a transaction that waited for something that itself waited for the session
    // (its own query outside it, a call to a service on the same database) held it for good.
    it('loses the session, so a transaction waiting on its own session cannot wedge the database', async () => {
      const stuck = db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 'stuck', name: 'stuck' }).execute();
        await db.selectFrom('items').select('id').execute();
        await trx.insertInto('items').values({ id: 'stuck2', name: 'stuck2' }).execute();
      });
      await expect(stuck).rejects.toThrow(/idle in a transaction/);
      expect(await ids()).toEqual([]);
    });

    it('cannot commit after the session was taken back', async () => {
      const late = db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 'late', name: 'late' }).execute();
        await new Promise((resolve) => setTimeout(resolve, 600));
      });
      await expect(late).rejects.toThrow(/idle in a transaction/);
      await db.insertInto('items').values({ id: 'after', name: 'after' }).execute();
      expect(await ids()).toEqual(['after']);
    });

    it('keeps a transaction that is busy, however long its queries take', async () => {
      await db.transaction().execute(async (trx) => {
        const started = Date.now();
        // Longer than the idle limit (300 ms) on a fast machine too: about a second of work.
        await sql`select count(*) from generate_series(1, 4000000)`.execute(trx);
        expect(Date.now() - started).toBeGreaterThan(300);
        await trx.insertInto('items').values({ id: 'busy', name: 'busy' }).execute();
        for (let i = 0; i < 5; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          await trx.selectFrom('items').select('id').execute();
        }
      });
      expect(await ids()).toContain('busy');
    });
  });

  it('persists data in <dataDir>/pgdata across close and reopen', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'edge-db-data-'));
    try {
      const first = await openConnection({ dataDir: join(dataDir, 'nested') });
      await migrate(first, 'persist', migrationsDir);
      await createDb<TestDb>(first, 'persist').insertInto('items').values({ id: 'p1', name: 'kept' }).execute();
      await first.close();

      const second = await openConnection({ dataDir: join(dataDir, 'nested') });
      try {
        expect(await migrate(second, 'persist', migrationsDir)).toEqual([]);
        const rows = await createDb<TestDb>(second, 'persist').selectFrom('items').select('name').execute();
        expect(rows).toEqual([{ name: 'kept' }]);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('requires a dataDir without a url', async () => {
    await expect(openConnection({})).rejects.toThrow(/dataDir/);
  });
});

describe('schema names', () => {
  it('rejects names that are not plain lower-case identifiers', () => {
    expect(() => quoteSchemaName('Policy')).toThrow();
    expect(() => quoteSchemaName('a"; drop schema x; --')).toThrow();
    expect(() => quoteSchemaName('1abc')).toThrow();
    expect(quoteSchemaName('policy_2')).toBe('"policy_2"');
  });

  it('validates before touching the database', async () => {
    const conn = await openConnection({ dataDir: ':memory:' });
    try {
      expect(() => createDb(conn, 'bad-name')).toThrow(/invalid schema name/);
      await expect(migrate(conn, 'bad name', migrationsDir)).rejects.toThrow(/invalid schema name/);
      await expect(dropSchema(conn, 'Bad')).rejects.toThrow(/invalid schema name/);
    } finally {
      await conn.close();
    }
  });
});
