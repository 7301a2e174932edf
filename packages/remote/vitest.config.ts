import { packageProject } from '../../config/vitest-preset.js';

// Exhaustive and property tests (wire/frame-scan-wasm, the relay core) take seconds of CPU; with other test files
// running beside them on two cores they need more than the usual budget.
export default packageProject('remote', { testTimeout: 60_000 });
