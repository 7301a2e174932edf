/**
 * Public surface of the ai-sdk-agent example: the agent factory (also the default export, which
 * `acpremote serve examples/ai-sdk-agent/dist/index.js` loads), its tool, model choice and constants.
 */
import { createReleaseHelperAgent } from './release-helper-agent.js';

export { CODING_AGENT_SYSTEM, codingModelFromEnvironment, createCodingAgent } from './coding-agent.js';
export { SERVICE, VERSION } from './release.js';
export {
  createReleaseHelperAgent,
  deployTool,
  modelFromEnvironment,
  RELEASE_HELPER_SYSTEM,
} from './release-helper-agent.js';
export { createScriptedCodingModel, GREETING_FILE } from './scripted-coder.js';
export { createScriptedReleaseModel } from './scripted-model.js';

// biome-ignore lint/style/noDefaultExport: serve targets load a module's default export when no export name is given.
export default createReleaseHelperAgent;
