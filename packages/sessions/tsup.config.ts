import { packageBuild } from '../../config/tsup-preset.js';

// The drivers live in their own entries, so the main entry never imports `pg` or `better-sqlite3` (optional peers,
// never bundled: tsup leaves peers external).
export default packageBuild({
  entry: ['src/index.ts', 'src/sqlite.ts', 'src/postgres.ts', 'src/testing.ts'],
});
