import { packageBuild } from '../../config/tsup-preset.js';

// `internal` is what the CLIs and the repository's tests share with the package beyond its public surface.
export default packageBuild({ entry: ['src/index.ts', 'src/internal.ts'] });
