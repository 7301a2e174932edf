#!/usr/bin/env node
import { exitAfterFlush } from '@acpkit/cli-support';
import { main } from './program.js';

await exitAfterFlush(await main(process.argv.slice(2)));
