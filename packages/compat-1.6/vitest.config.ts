import { packageProject } from '../../config/vitest-preset.js';

export default packageProject('compat-1.6');
