import { existsSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startPostgres } from './postgres.js';

describe('startPostgres', () => {
  it('starts a real server on a socket of its own, pauses, restarts, and removes everything on stop', async () => {
    const postgres = await startPostgres();
    try {
      const client = new pg.Client({ connectionString: postgres.connectionString });
      await client.connect();
      const { rows } = await client.query<{ version: string }>('select version() as version');
      expect(rows[0]?.version).toMatch(/^PostgreSQL \d+/);
      await client.end();

      await postgres.pause();
      const down = new pg.Client({ connectionString: postgres.connectionString });
      await expect(down.connect()).rejects.toThrow();
      await postgres.start();
      const again = new pg.Client({ connectionString: postgres.connectionString });
      await again.connect();
      await again.end();
    } finally {
      await postgres.stop();
    }
    expect(existsSync(postgres.directory)).toBe(false);
    await postgres.stop();
  });
});
