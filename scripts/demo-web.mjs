#!/usr/bin/env node
// `pnpm demo:web`: the deploy-target example agent behind `acpkit web` (after `pnpm demo:web` built the workspace).
// acpkit web prints the URL with its one-time token on stderr and opens nothing; open it in a browser, ask the agent
// to deploy, and answer its "Choose a deployment target" form there. Ctrl+C stops the server and the agent.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = spawn(
  process.execPath,
  [
    `${root}apps/acpkit/dist/cli.js`,
    'web',
    '--',
    process.execPath,
    `${root}examples/deploy-target/dist/agent.js`,
  ],
  { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
);
process.stderr.write(
  '[demo:web] Open the URL below in a browser, type "Deploy the app" and answer the form. Ctrl+C stops.\n',
);
// Ctrl+C reaches acpkit web too (the same terminal process group); a SIGTERM to this script is passed on.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => web.kill(signal));
web.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal === 'SIGINT' ? 130 : 143);
});
