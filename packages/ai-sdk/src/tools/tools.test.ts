import { FormSchemaError } from '@acpkit/form-schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AiSdkAgentError } from '../errors.js';
import { askUserTool } from './ask-user-tool.js';
import { formTool } from './form-tool.js';

const call = { toolCallId: 'c1', messages: [] };

describe('askUserTool / formTool outside an agent', () => {
  it('refuse to run without an ACP session (TOOL_OUTSIDE_SESSION) instead of guessing one', async () => {
    const ask = askUserTool();
    const form = formTool({ description: 'Settings', schema: z.object({ name: z.string() }) });
    for (const [tool, helper] of [
      [ask, 'askUserTool()'],
      [form, 'formTool()'],
    ] as const) {
      let thrown: unknown;
      try {
        await tool.execute?.({ question: 'x', message: 'x' } as never, call);
      } catch (error) {
        thrown = error;
      }
      expect(AiSdkAgentError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({ code: 'TOOL_OUTSIDE_SESSION' });
      expect((thrown as Error).message).toContain(`A tool made by ${helper} works through an ACP session`);
    }
  });

  it('describe themselves to the model and take the documented input', () => {
    const ask = askUserTool({ description: 'Ask the release manager.' });
    expect(ask.description).toBe('Ask the release manager.');
    const schema = ask.inputSchema as z.ZodType;
    expect(schema.safeParse({ question: 'Which?', options: ['a', 'b'] }).success).toBe(true);
    expect(schema.safeParse({ question: 'Which?', options: ['only one'] }).success).toBe(false);
    expect(schema.safeParse({ question: '' }).success).toBe(false);
  });
});

describe('formTool', () => {
  it('compiles the schema when it is made: a form ACP cannot express fails now', () => {
    expect(() =>
      formTool({
        description: 'Nested',
        schema: z.object({ nested: z.object({ a: z.string() }) }) as never,
      }),
    ).toThrow(FormSchemaError);
  });

  it.each([
    [{ description: '' }, 'formTool description must be a non-empty string, got ""'],
    [{ description: 'ok', title: ' ' }, 'formTool title must be a non-empty string, got " "'],
  ])('refuses %j', (options, message) => {
    expect(() => formTool({ schema: z.object({ a: z.string() }), ...options } as never)).toThrow(message);
  });

  it('askUserTool refuses a blank description', () => {
    expect(() => askUserTool({ description: '' })).toThrow(
      'askUserTool description must be a non-empty string',
    );
  });
});
