import { packageProject, USES_SERVICES } from '../../config/vitest-preset.js';

// Its checkpointer tests start a Postgres.
export default packageProject('langchain', USES_SERVICES);
