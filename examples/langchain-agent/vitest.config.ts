import { packageProject } from '../../config/vitest-preset.js';

export default packageProject('example-langchain-agent', { isolate: true });
