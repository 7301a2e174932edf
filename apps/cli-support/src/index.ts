/**
 * Internal code shared by the `acpremote` and `acpkit` CLIs. Bundled into each CLI; never published.
 */
export { formatServeBanner, SUGGESTED_TOKEN_VARIABLE } from './banner.js';
export type { CliIo } from './cli-io.js';
export { exitAfterFlush, processIo, writeLine } from './cli-io.js';
export type { ExposeFlagValues, MirrorFlagValues } from './commands.js';
export {
  addServeCommand,
  exposeCommand,
  mirror,
  runTargetOverStdio,
  serveAgentOverStdio,
  serveTarget,
  TARGET_ARGUMENT_HELP,
} from './commands.js';
export { routeConsoleToLogger } from './console-capture.js';
export { parseEnvironmentAssignment, parseEnvironmentAssignments } from './environment-assignment.js';
export { CliError, CliErrorCode } from './errors.js';
export type { StopSignal } from './exit-codes.js';
export { ExitCode, exitCodeForSignal } from './exit-codes.js';
export {
  collectRepeatable,
  parseNonNegativeInteger,
  parseNonNegativeSecondsToMilliseconds,
  parsePort,
  parsePositiveInteger,
  parseSecondsToMilliseconds,
} from './flag-parsers.js';
export type { ServeErrorContext } from './remote-error-messages.js';
export { explainMirrorError, explainServeError } from './remote-error-messages.js';
export type { MainOptions } from './run-program.js';
export { CliRun, packageVersion, reportError, runMain } from './run-program.js';
export type {
  ConnectFlagValues,
  FlagHelp,
  ResolvedConnectFlags,
  ResolvedServeFlags,
  ServeFlagValues,
  TokenFlagValues,
  TransportFlag,
} from './serve-flags.js';
export {
  addConnectFlags,
  addServeFlags,
  addTokenFlags,
  CONNECT_FLAG_NAMES,
  RESUME_FLAG_HELP,
  resolveConnectFlags,
  resolveServeFlags,
  SERVE_DEFAULTS,
  stallTimeoutSeconds,
  TRANSPORT_FLAG_HELP,
} from './serve-flags.js';
export type {
  AgentAppTarget,
  AgentFactoryTarget,
  LoadedTarget,
  LoadTargetOptions,
  TargetSpecifier,
} from './target.js';
export { agentSource, instantiateAgent, isAgentApp, loadTarget, parseTargetSpecifier } from './target.js';
export type { TestIo } from './test-io.js';
export { createTestIo } from './test-io.js';
export type { ResolvedToken, TokenFlags } from './token.js';
export { describeTokenSource, resolveBearerToken } from './token.js';
