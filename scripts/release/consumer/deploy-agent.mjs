#!/usr/bin/env node
// The tiny agent the installed CLIs serve: `acpremote serve ./deploy-agent.mjs:createAgent` loads the named factory
// (every connection gets a fresh agent app), and `acpremote expose -- node deploy-agent.mjs` runs it over stdio.
import { realpathSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as elicitation from '@acpkit/elicitation';
import * as sdk from '@agentclientprotocol/sdk';
import scenario from './deploy-scenario.cjs';

export function createAgent() {
  return scenario.createDeployAgent({ sdk, elicitation });
}

const invokedDirectly = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const stream = sdk.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  const connection = createAgent().connect(stream);
  // The SDK never ends stdout by itself; leave when the client hangs up.
  process.stdin.on('end', () => process.exit(0));
  connection.closed.then(() => process.exit(0));
}
