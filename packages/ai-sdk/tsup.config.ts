import { packageBuild } from '../../config/tsup-preset.js';

export default packageBuild({ entry: { index: 'src/index.ts', 'mcp/index': 'src/mcp/index.ts' } });
