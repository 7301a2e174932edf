import { packageProject } from '../../config/vitest-preset.js';

export default packageProject('testing', { testTimeout: 30_000 });
