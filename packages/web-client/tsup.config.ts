import { defineConfig } from 'tsup';
import { packageBuild } from '../../config/tsup-preset.js';

export default defineConfig([
  // The server (Node): serveWebClient, used by `acpkit web`.
  packageBuild({ entry: ['src/index.ts'] }),
  // The page (browser): one minified script and one stylesheet, shipped in the package, loaded from no CDN.
  {
    entry: { app: 'src/page/main.tsx' },
    outDir: 'dist/page',
    format: ['esm'],
    target: 'es2022',
    platform: 'browser',
    minify: true,
    sourcemap: false,
    dts: false,
    clean: false,
    publicDir: 'src/page/public',
    outExtension: () => ({ js: '.js' }),
    noExternal: [/.*/],
    esbuildOptions(options) {
      options.jsx = 'automatic';
      options.jsxImportSource = 'preact';
    },
  },
]);
