/**
 * Public surface of @acpkit/testing: a test client for ACP agents whose elicitation answers are scripted, and the
 * answer rules it shares with `acpkit client --answer`. Every export here is public API: named exports only.
 */
export {
  AgentProcessError,
  ScriptedAnswerError,
  type ScriptProblem,
  TestingError,
  TestingErrorCode,
} from './errors.js';
export type {
  AnswerScripts,
  FormScript,
  FormScriptsByTitle,
  ScriptedAnswerSource,
  ScriptedFieldAnswer,
  ScriptedForm,
  ScriptedFormAnswer,
  ScriptValue,
} from './forms/scripted-answers.js';
export {
  answerFormWithScript,
  parseAnswerAssignments,
  parseFormScripts,
} from './forms/scripted-answers.js';
export type {
  ConnectableAgent,
  ElicitationAnswerer,
  PermissionAnswers,
  SpawnTestClientOptions,
  TestClient,
  TestClientOptions,
} from './test-client.js';
export { connectTestClient, spawnTestClient } from './test-client.js';
export type {
  ElicitationRequestEvent,
  PermissionRequestEvent,
  SessionUpdateEvent,
  StdoutNoiseEvent,
  TranscriptEvent,
  TruncatedEvent,
  TurnEndEvent,
  TurnTranscript,
  WireMessage,
} from './transcript.js';
