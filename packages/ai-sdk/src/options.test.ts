import { OptionError } from '@acpkit/errors';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { type AiSdkAgentOptions, resolveAgentOptions } from './options.js';

const model = new MockLanguageModelV3();
const valid: AiSdkAgentOptions = { name: 'helper', version: '1.0.0', model };

function rejected(options: unknown): OptionError {
  try {
    resolveAgentOptions(options as AiSdkAgentOptions);
  } catch (error) {
    expect(OptionError.isInstance(error)).toBe(true);
    expect((error as OptionError).code).toBe('INVALID_OPTION');
    return error as OptionError;
  }
  throw new Error('expected INVALID_OPTION');
}

describe('resolveAgentOptions', () => {
  it('applies the defaults: 20 steps, text only, an in-memory store, 100 open sessions', () => {
    const resolved = resolveAgentOptions(valid);
    expect(resolved).toMatchObject({
      name: 'helper',
      version: '1.0.0',
      title: undefined,
      system: undefined,
      tools: {},
      maxSteps: 20,
      modelInputs: { image: false, audio: false },
      callSettings: {},
      maxOpenSessions: 100,
    });
    expect(resolved.sessionStore?.kind).toBe('memory');
    expect(resolveAgentOptions({ ...valid, sessionStore: null }).sessionStore).toBeNull();
  });

  it.each([
    [{ ...valid, name: ' ' }, 'name must be a non-empty string, got " "'],
    [{ ...valid, version: 1 }, 'version must be a non-empty string, got 1'],
    [
      { ...valid, model: undefined },
      'model must be an AI SDK language model (or a gateway model id), or `models`, got undefined',
    ],
    [{ ...valid, maxSteps: 0 }, 'maxSteps must be a positive integer, got 0'],
    [{ ...valid, maxSteps: 2.5 }, 'maxSteps must be a positive integer, got 2.5'],
    [{ ...valid, tools: [] }, 'tools must be an object of AI SDK tools, got []'],
    [
      { ...valid, tools: { deploy: 'deploy' } },
      'tools.deploy must be an AI SDK tool (an object), got "deploy"',
    ],
    [{ ...valid, modelInputs: { image: 'yes' } }, 'modelInputs.image must be true or false, got "yes"'],
    [
      { ...valid, sessionStore: { get: () => undefined } },
      'sessionStore must be null or an @acpkit/sessions store (memorySessionStore(), fileSessionStore(), sqliteSessionStore(), postgresSessionStore()), got {}',
    ],
    [{ ...valid, describeToolCall: 'title' }, 'describeToolCall must be a function, got "title"'],
    [{ ...valid, maxOpenSessions: -1 }, 'maxOpenSessions must be a positive integer, got -1'],
    [{ ...valid, system: 42 }, 'system must be a string, got 42'],
  ])('refuses a bad option with a message that names it (%#)', (options, message) => {
    const error = rejected(options);
    expect(error.message).toBe(message);
    // The option's own name is a field (tools.deploy is option "tools"): programs branch on it, not on the text.
    expect(error.option).toBe(message.split(/[ .]/)[0]);
    expect(message).toContain(`must be ${error.expected}, got ${error.received}`);
  });

  it('refuses a missing options object', () => {
    expect(rejected(undefined)).toMatchObject({
      option: 'options',
      message: 'createAiSdkAgent options must be an object, got undefined',
    });
  });
});
