/**
 * Public surface of the deploy-target example: the agent factory (also the default export, which
 * `acpremote serve examples/deploy-target/dist/index.js` loads) and its constants.
 */
import { createDeployTargetAgent } from './deploy-target-agent.js';

export {
  createDeployTargetAgent,
  DEPLOY_TARGET_QUESTION,
  DEPLOY_TARGETS,
  type DeployTarget,
  replyFor,
  UNSUPPORTED_REPLY,
} from './deploy-target-agent.js';

// biome-ignore lint/style/noDefaultExport: serve targets load a module's default export when no export name is given.
export default createDeployTargetAgent;
