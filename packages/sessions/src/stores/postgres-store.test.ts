import { startPostgres, type TestPostgres } from '@acpkit/test-support/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSessionStoreContract } from '../testing.js';
import { type PostgresPoolLike, postgresSessionStore } from './postgres-store.js';

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres?.stop());

let schemas = 0;
// Each test gets a schema of its own in the one server of this file.
describeSessionStoreContract('postgres', (options) =>
  postgresSessionStore({
    connectionString: postgres.connectionString,
    schema: `contract_${++schemas}`,
    ...options,
  }),
);

describe('postgresSessionStore on a real server', () => {
  it('creates its tables and version row on first use, once, even when two servers start together', async () => {
    const first = postgresSessionStore({
      connectionString: postgres.connectionString,
      schema: 'shared_start',
    });
    const second = postgresSessionStore({
      connectionString: postgres.connectionString,
      schema: 'shared_start',
    });
    await Promise.all([first.list?.(), second.list?.()]);
    const client = new pg.Client({ connectionString: postgres.connectionString });
    await client.connect();
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'shared_start' ORDER BY table_name",
    );
    expect(tables.rows.map((row) => row.table_name)).toEqual([
      'acpkit_schema_version',
      'acpkit_session_turns',
      'acpkit_sessions',
    ]);
    const version = await client.query('SELECT component, version FROM shared_start.acpkit_schema_version');
    expect(version.rows).toEqual([{ component: 'sessions', version: 1 }]);
    await client.end();
    await first.close();
    await second.close();
  });

  it('shares sessions between two stores (two servers) and refuses the stale one of two concurrent writes', async () => {
    const a = postgresSessionStore({ connectionString: postgres.connectionString, schema: 'two_servers' });
    const b = postgresSessionStore({ connectionString: postgres.connectionString, schema: 'two_servers' });
    await a.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: ['one'] });
    expect((await b.get('s'))?.entries).toEqual(['one']);
    const results = await Promise.allSettled([
      a.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['from a'] }),
      b.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['from b'] }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(
      (results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason,
    ).toMatchObject({
      code: 'STALE_WRITE',
    });
    expect((await a.get('s'))?.entries).toHaveLength(2);
    await a.close();
    await b.close();
  });

  it('uses a pool it is given and leaves it open on close', async () => {
    const pool = new pg.Pool({ connectionString: postgres.connectionString, max: 2 });
    // A pg.Pool is a PostgresPoolLike as it is: no cast, no @types/pg in the store's types.
    const given: PostgresPoolLike = pool;
    const store = postgresSessionStore({ pool: given, schema: 'given_pool' });
    await store.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: [] });
    await store.close();
    expect((await pool.query('SELECT count(*)::int AS n FROM given_pool.acpkit_sessions')).rows[0]).toEqual({
      n: 1,
    });
    await pool.end();
  });

  it('says STORE_UNAVAILABLE while the server is down, loses nothing, and works again once it is back', async () => {
    const store = postgresSessionStore({
      connectionString: postgres.connectionString,
      schema: 'down_and_up',
    });
    await store.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: ['kept'] });
    await postgres.pause();
    try {
      const error = await store
        .save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['lost?'] })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE', details: { sessionId: 's' } });
      expect((error as Error).message).toMatch(
        /Postgres session store cannot be reached .*Check that it is up and retry/,
      );
      await expect(store.list?.()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    } finally {
      await postgres.start();
    }
    expect((await store.get('s'))?.entries).toEqual(['kept']);
    await store.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['after'] });
    await store.close();
  });

  it('refuses options it cannot use, without echoing a connection string', () => {
    expect(() => postgresSessionStore({} as never)).toThrow(
      'exactly one of { connectionString } or { pool }',
    );
    expect(() =>
      postgresSessionStore({ connectionString: postgres.connectionString, schema: 'Robert"; DROP' }),
    ).toThrow('schema must be a lower-case SQL identifier');
  });
});
