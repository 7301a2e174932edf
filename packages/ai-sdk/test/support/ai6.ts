// The scenario agent built from this package's source and the workspace's ai 6 (MockLanguageModelV3), in-process.
import type { AgentApp, AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { APICallError, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import * as adapter from '../../src/index.js';
import { createScenarioAgent, type ModelProbe } from './scenario-agent.js';

export function scenarioAgentAi6(
  overrides: Record<string, unknown> = {},
  probe?: ModelProbe,
): { app: AgentApp; probe: ModelProbe } {
  return createScenarioAgent(
    {
      adapter,
      tool: tool as <T>(definition: T) => T,
      MockLanguageModel: MockLanguageModelV3 as never,
      ApiCallError: APICallError,
      z,
    },
    overrides,
    probe,
  );
}

/** Two message streams joined back to back, as a transport joins them. */
export function wirePair(): { agentSide: Stream; clientSide: Stream } {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  return {
    agentSide: { readable: toAgent.readable, writable: toClient.writable },
    clientSide: { readable: toClient.readable, writable: toAgent.writable },
  };
}

/** Connects `app` to a fresh wire pair; `close` ends both directions. */
export function connectApp(app: AgentApp): { stream: Stream; close(): Promise<void> } {
  const pair = wirePair();
  const connection = app.connect(pair.agentSide);
  return {
    stream: pair.clientSide,
    async close() {
      connection.close();
      await Promise.all([
        pair.agentSide.writable.close().catch(() => undefined),
        pair.clientSide.writable.close().catch(() => undefined),
      ]);
    },
  };
}
