// Loads @acpkit/elicitation and the SDK with `import`, runs askChoice in memory and prints the outcome as JSON.
import * as elicitation from '@acpkit/elicitation';
import * as sdk from '@agentclientprotocol/sdk';
import scenario from './deploy-scenario.cjs';

const modules = { sdk, elicitation };
const outcome = await scenario.promptOnce(modules, scenario.createDeployAgent(modules), process.cwd());
console.log(JSON.stringify({ node: process.version, exports: Object.keys(elicitation).sort(), ...outcome }));
