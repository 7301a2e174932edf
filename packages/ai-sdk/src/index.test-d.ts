import type { AgentApp } from '@agentclientprotocol/sdk';
import { type InferToolOutput, type LanguageModel, tool } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { askUserTool, createAiSdkAgent, formTool, type QuestionToolResult } from './index.js';

declare const model: LanguageModel;

describe('public types', () => {
  it('createAiSdkAgent takes AI SDK tools, the question tools among them, and returns an SDK AgentApp', () => {
    const deploy = tool({
      description: 'Deploy',
      inputSchema: z.object({ environment: z.enum(['staging', 'production']) }),
      needsApproval: true,
      execute: async ({ environment }) => `deployed to ${environment}`,
    });
    const app = createAiSdkAgent({
      name: 'helper',
      version: '1.0.0',
      model,
      tools: { deploy, askUser: askUserTool() },
      describeToolCall: ({ toolName }) => ({ title: toolName, kind: 'execute' }),
    });
    expectTypeOf(app).toEqualTypeOf<AgentApp>();
  });

  it("gives the model formTool's answer as the schema's output type", () => {
    const settings = formTool({
      description: 'Settings',
      schema: z.object({ replicas: z.int().default(2), region: z.enum(['eu', 'us']) }),
    });
    expectTypeOf<InferToolOutput<typeof settings>>().toEqualTypeOf<
      QuestionToolResult<{ replicas: number; region: 'eu' | 'us' }>
    >();
    expectTypeOf<InferToolOutput<ReturnType<typeof askUserTool>>>().toEqualTypeOf<
      QuestionToolResult<string>
    >();
  });

  it('refuses, at compile time, a form schema ACP forms cannot express', () => {
    // @ts-expect-error: nested objects are not ACP form fields
    formTool({ description: 'Nested', schema: z.object({ nested: z.object({ a: z.string() }) }) });
  });
});
