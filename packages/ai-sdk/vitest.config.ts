import { packageProject } from '../../config/vitest-preset.js';

export default packageProject('ai-sdk');
