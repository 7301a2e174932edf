import { packageProject } from '../../config/vitest-preset.js';

// Each file starts its own Postgres or SQLite file.
export default packageProject('sessions', { testTimeout: 30_000, hookTimeout: 60_000 });
