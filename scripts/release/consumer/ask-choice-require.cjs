// Loads @acpkit/elicitation and the SDK with `require()` (require(esm), Node >= 20.19), runs askChoice in memory and
// prints the outcome as JSON.
'use strict';
const elicitation = require('@acpkit/elicitation');
const sdk = require('@agentclientprotocol/sdk');
const scenario = require('./deploy-scenario.cjs');

const modules = { sdk, elicitation };
scenario.promptOnce(modules, scenario.createDeployAgent(modules), process.cwd()).then(
  (outcome) =>
    console.log(
      JSON.stringify({ node: process.version, exports: Object.keys(elicitation).sort(), ...outcome }),
    ),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
