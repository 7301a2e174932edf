import { fileURLToPath } from 'node:url';
import { venvBinary } from '../../../scripts/python-venv.mjs';

/** Files of this package. */
export const interopPaths = {
  /** The pydantic-acp stdio agent whose `/choose` command calls `ask_choice`. */
  pythonChoiceAgent: fileURLToPath(new URL('../python/choice_agent.py', import.meta.url)),
  /** The Python SDK's RFD transport server (`acp.http.asgi`) under uvicorn, serving a deploy-target-like agent. */
  pythonAsgiServer: fileURLToPath(new URL('../python/asgi_agent_server.py', import.meta.url)),
  /** A client on the Python SDK's RFD transports (`create_http_stream`, `create_websocket_stream`). */
  pythonRfdClient: fileURLToPath(new URL('../python/rfd_client.py', import.meta.url)),
  /** A form-answering client on the Python ACP SDK: answers any form an agent asks from its schema. */
  pythonFormsClient: fileURLToPath(new URL('../python/forms_client.py', import.meta.url)),
  /** The release-form example agent: askForm (with choiceField), askChoices and askConfirm. */
  releaseFormAgent: fileURLToPath(new URL('../../../examples/release-form/dist/agent.js', import.meta.url)),
  /** The TypeScript twin: an SDK agent whose `/choose` command calls `askChoice`. */
  typescriptChoiceAgent: fileURLToPath(new URL('../fixtures/ts-choice-agent.mjs', import.meta.url)),
  /** A stdio wrapper that records every line its child reads (what reached our server). */
  stdinRecorder: fileURLToPath(new URL('../fixtures/record-stdin.mjs', import.meta.url)),
  /** The committed captures of the real Python `ask_choice`. */
  pythonVectors: fileURLToPath(new URL('../vectors/python-ask-choice.json', import.meta.url)),
  typedElicitationDocs: fileURLToPath(new URL('../../../docs/typed-elicitation.md', import.meta.url)),
  remoteTransportDocs: fileURLToPath(new URL('../../../docs/remote-transport.md', import.meta.url)),
} as const;

/** Executables of the project-local venv (scripts/python-venv.mjs). */
export const python = {
  interpreter: venvBinary('python'),
  acpremote: venvBinary('acpremote'),
  acpkit: venvBinary('acpkit'),
} as const;
