import { packageBuild } from '../../config/tsup-preset.js';

// `internal` is the code @acpkit/cli shares with the test client (form reading, answer rules, the agent process).
export default packageBuild({ entry: ['src/index.ts', 'src/internal.ts'] });
