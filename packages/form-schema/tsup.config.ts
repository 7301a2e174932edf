import { packageBuild } from '../../config/tsup-preset.js';

export default packageBuild({ entry: ['src/index.ts'], platform: 'neutral' });
