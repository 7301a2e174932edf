// A consumer of the packed packages, type-checked by `pnpm release:check` against the installed `.d.ts` files with
// `skipLibCheck: false`: every declaration file the packages ship (every entry point of every public package, and
// the SDK's, the AI SDK's and LangChain's they name) must compile for a user. This is the test command's one check of
// the declarations themselves with skipLibCheck off (the docs' examples and the registry consumer compile against
// them with it on). `lib` includes DOM because the AI SDK's own declarations (the `ai` peer of @acpkit/ai-sdk) name
// DOM types.
import * as acpremote from '@acpkit/acpremote';
import * as aiSdk from '@acpkit/ai-sdk';
import {
  AiSdkAgentError,
  askUserTool,
  createAiSdkAgent,
  formTool,
  type QuestionToolResult,
} from '@acpkit/ai-sdk';
import * as aiSdkMcp from '@acpkit/ai-sdk/mcp';
import * as choiceSchema from '@acpkit/choice-schema';
import { compileChoiceElicitation, parseChoiceResponse } from '@acpkit/choice-schema';
import * as cli from '@acpkit/cli';
import * as compat from '@acpkit/compat-1.6';
import { legacyFallback } from '@acpkit/compat-1.6';
import * as elicitationPackage from '@acpkit/elicitation';
import {
  AcpSessionContext,
  ElicitationAccepted,
  ElicitationDeclined,
  type ElicitationResult,
  ElicitationUnsupportedError,
  InvalidElicitationResponseError,
} from '@acpkit/elicitation';
import * as errors from '@acpkit/errors';
import { AcpKitError, brandErrorClass } from '@acpkit/errors';
import * as formSchema from '@acpkit/form-schema';
import * as langchain from '@acpkit/langchain';
import * as remote from '@acpkit/remote';
import {
  AcpRemoteError,
  type ConnectOptions,
  connectAcp,
  type MirrorOptions,
  type RemoteServer,
  type ServeOptions,
  serveAcp,
} from '@acpkit/remote';
import * as remoteInternal from '@acpkit/remote/internal';
import * as sessionsPackage from '@acpkit/sessions';
import { memorySessionStore } from '@acpkit/sessions';
import * as sessionsPostgres from '@acpkit/sessions/postgres';
import * as sessionsSqlite from '@acpkit/sessions/sqlite';
import * as sessionsTesting from '@acpkit/sessions/testing';
import * as testing from '@acpkit/testing';
import {
  connectTestClient,
  type FormScript,
  ScriptedAnswerError,
  type TurnTranscript,
} from '@acpkit/testing';
import * as testingInternal from '@acpkit/testing/internal';
import * as webClient from '@acpkit/web-client';
import {
  type AgentApp,
  type AgentContext,
  agent,
  type ClientRequestParamsByMethod,
  methods,
  PROTOCOL_VERSION,
} from '@agentclientprotocol/sdk';
import { type LanguageModel, tool } from 'ai';
import { z } from 'zod';

const deployTargets = [
  { value: 'preview', label: 'Preview' },
  {
    value: 'production',
    label: 'Production',
    description: 'Deploy to the production environment.',
    default: true,
  },
] as const;

type DeployTarget = (typeof deployTargets)[number]['value'];

/** askChoice infers the union of the offered literal values, and `status` narrows the result. */
export async function chooseTarget(
  client: AgentContext,
  sessionId: string,
): Promise<DeployTarget | undefined> {
  const session = new AcpSessionContext({
    sessionId,
    client,
    clientCapabilities: { elicitation: { form: {} } },
  });
  const supported: boolean = session.supportsElicitation('form');
  const result = await session.askChoice('Choose a deployment target', deployTargets, {
    fallback: () => new ElicitationDeclined(),
    signal: AbortSignal.timeout(60_000),
  });
  const widened: ElicitationResult<DeployTarget> = result;
  if (result instanceof ElicitationAccepted) {
    const picked: DeployTarget = result.value;
    return supported ? picked : widened.status === 'accepted' ? picked : undefined;
  }
  switch (result.status) {
    case 'declined':
    case 'cancelled':
      return undefined;
  }
}

/** The 1.6.0-style fallback still type-checks through the deprecated shim. */
export async function chooseWithLegacyFallback(
  session: AcpSessionContext,
): Promise<ElicitationResult<DeployTarget>> {
  return session.askChoice('Choose a deployment target', deployTargets, {
    fallback: legacyFallback(() => 'preview' as const),
  });
}

/** The pure compiler's output is a valid SDK `elicitation/create` request, and parsing keeps the offered choice. */
export function compileForTheSdk(sessionId: string): ClientRequestParamsByMethod['elicitation/create'] {
  const params = compileChoiceElicitation({
    sessionId,
    question: 'Choose a deployment target',
    choices: deployTargets,
  });
  const parsed = parseChoiceResponse({ action: 'accept', content: { choice: 'choice_1' } }, deployTargets);
  if (parsed.status === 'accepted') {
    const value: DeployTarget = parsed.choice.value;
    return { ...params, message: `${params.message} (${value})` };
  }
  return params;
}

/** Errors are recognised across copies of a package with isInstance(), and carry a stable string code. */
export function describeError(error: unknown): string {
  if (ElicitationUnsupportedError.isInstance(error)) return `unsupported: ${error.code}`;
  if (InvalidElicitationResponseError.isInstance(error)) return `invalid response: ${error.code}`;
  if (AcpRemoteError.isInstance(error)) return `remote: ${error.code}`;
  return String(error);
}

/** One root: every package's errors are AcpKitErrors, and a family of one's own is a subclass with two lines. */
export class DeployError extends AcpKitError<'DEPLOY_FAILED'> {
  static override readonly isInstance = brandErrorClass(DeployError, 'acpkit.error.deploy');
  override readonly name: string = 'DeployError';
}

export function anyAcpKitError(failures: unknown[]): AcpKitError[] {
  const remote: AcpKitError = new AcpRemoteError('INVALID_OPTION', 'bad option');
  const deploy = new DeployError('DEPLOY_FAILED', 'no target', { cause: remote });
  const deployCodes: 'DEPLOY_FAILED'[] = failures.filter(DeployError.isInstance).map((error) => error.code);
  return deployCodes.length > 0 ? [remote, deploy] : failures.filter(AcpKitError.isInstance);
}

/** Serve an in-process SDK agent (a factory: one agent per connection) and connect to it. */
export async function serveAndConnect(): Promise<RemoteServer> {
  const options: ServeOptions = { host: '127.0.0.1', port: 0 };
  const server = await serveAcp(
    () =>
      agent({ name: 'typed-consumer' }).onRequest(methods.agent.initialize, () => ({
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {},
      })),
    options,
  );
  const transport: ConnectOptions = { openTimeoutMs: 5_000 };
  // The mirror's options are the connection options plus its own policy.
  const mirrorOptions: MirrorOptions = { ...transport, useUnstableProtocol: false, hostOwnership: 'remote' };
  const connection = await connectAcp(server.url, { openTimeoutMs: mirrorOptions.openTimeoutMs });
  const writer = connection.stream.writable.getWriter();
  writer.releaseLock();
  await connection.close();
  return server;
}

/** An agent author's test: scripted answers in, a typed transcript out. */
export async function testWithScriptedAnswers(): Promise<TurnTranscript | string> {
  const scripts: FormScript[] = [{ Choice: 'Preview' }, 'decline'];
  const client = await connectTestClient(
    agent({ name: 'typed-test-target' }).onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {},
    })),
    { answers: scripts, permissions: 'reject' },
  );
  try {
    const turn = await client.prompt('Deploy');
    const elicitation = turn.elicitations[0];
    return elicitation?.request.mode === 'form' ? turn : turn.text;
  } catch (error) {
    if (ScriptedAnswerError.isInstance(error)) return `${error.code} ${error.form} ${error.field}`;
    throw error;
  } finally {
    await client.close();
  }
}

/** An AI SDK agent: the consumer's own `ai` and zod types flow through the adapter's declarations. */
export function aiSdkAgent(model: LanguageModel): AgentApp {
  const deploy = tool({
    description: 'Deploy',
    inputSchema: z.object({ environment: z.enum(['staging', 'production']) }),
    needsApproval: true,
    execute: async ({ environment }) => ({ deployed: environment }),
  });
  const settings = formTool({
    description: 'Settings',
    schema: z.object({ replicas: z.int().min(1).default(2).meta({ title: 'Replicas' }) }),
  });
  const answer: QuestionToolResult<string> = { status: 'unsupported', message: 'no forms' };
  if (AiSdkAgentError.isInstance(answer)) throw answer;
  return createAiSdkAgent({
    name: 'typed-ai-sdk',
    version: '1.0.0',
    model,
    tools: { deploy, askUser: askUserTool(), settings },
    sessionStore: memorySessionStore({ maxSessions: 10 }),
  });
}

/**
 * Every entry point of every public package loads for a type-checked consumer, including the CLIs' programmatic APIs
 * and the `internal` subpaths (their declarations ship too).
 */
export const packageEntryPoints = [
  acpremote,
  aiSdk,
  aiSdkMcp,
  choiceSchema,
  cli,
  compat,
  elicitationPackage,
  errors,
  formSchema,
  langchain,
  remote,
  remoteInternal,
  sessionsPackage,
  sessionsSqlite,
  sessionsPostgres,
  sessionsTesting,
  testing,
  testingInternal,
  webClient,
].map((namespace) => Object.keys(namespace));
