/**
 * Public surface of the langchain-agent example: the agent factory (also the default export, which
 * `acpremote serve examples/langchain-agent/dist/index.js` loads), its tool and scripted model.
 */
import { createReleaseAgent } from './release-agent.js';

export { createReleaseAgent, deployTool, SERVICE, VERSION } from './release-agent.js';
export { createScriptedReleaseModel } from './scripted-model.js';

// biome-ignore lint/style/noDefaultExport: serve targets load a module's default export when no export name is given.
export default createReleaseAgent;
