import { packageProject } from '../../config/vitest-preset.js';

// No type tests here, and a fresh worker per file.
export default packageProject('example-ai-sdk-agent', { typecheck: { enabled: false }, isolate: true });
