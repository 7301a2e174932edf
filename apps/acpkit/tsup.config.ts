import { cliBuild } from '../../config/tsup-preset.js';

// Bundled: the preset's cliBuild says what stays outside and why.
export default cliBuild({ entry: ['src/cli.ts', 'src/index.ts'] });
