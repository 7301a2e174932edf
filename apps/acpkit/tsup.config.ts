import { cliBuild } from '../../config/tsup-preset.js';

// The preset's cliBuild says what is bundled in and why.
export default cliBuild({ entry: ['src/cli.ts', 'src/index.ts'] });
