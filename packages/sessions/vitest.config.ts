import { packageProject, USES_SERVICES } from '../../config/vitest-preset.js';

// Each file starts its own Postgres or SQLite file.
export default packageProject('sessions', { ...USES_SERVICES, testTimeout: 30_000, hookTimeout: 60_000 });
