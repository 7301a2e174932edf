/**
 * Public surface of the release-form example: the agent factory (also the default export, which
 * `acpremote serve examples/release-form/dist/index.js` loads), its form and its constants.
 */
import { createReleaseFormAgent } from './release-form-agent.js';

export {
  CHANNELS,
  CURRENT_VERSION,
  createReleaseFormAgent,
  FORM_ATTEMPTS,
  PACKAGES,
  planText,
  RELEASE_FORM,
  type ReleaseDetails,
  type ReleasePackage,
  UNSUPPORTED_REPLY,
} from './release-form-agent.js';

// biome-ignore lint/style/noDefaultExport: serve targets load a module's default export when no export name is given.
export default createReleaseFormAgent;
