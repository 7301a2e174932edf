import { OptionError } from '@acpkit/errors';
import { MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { resolveAgentOptions } from './options.js';

const graph = { stream: async () => [], getState: async () => ({ values: {} }) };

describe('resolveAgentOptions', () => {
  it('names the first bad option, what is allowed and what was given', () => {
    const bad: Array<[Record<string, unknown>, RegExp, string]> = [
      [{ version: '1' }, /^name must be a non-empty string, got/, 'name'],
      [{ name: 'a', version: '1', agent: {} }, /^agent must be a createAgent\(\.\.\.\) result/, 'agent'],
      [
        { name: 'a', version: '1', agent: graph, maxOpenSessions: 0 },
        /^maxOpenSessions must be a positive integer, got 0/,
        'maxOpenSessions',
      ],
      [
        { name: 'a', version: '1', agent: graph, checkpointer: {} },
        /^checkpointer must be a LangGraph checkpoint saver/,
        'checkpointer',
      ],
      [
        { name: 'a', version: '1', agent: graph, mcp: { maxServers: -1 } },
        /^mcp\.maxServers must be a positive integer/,
        'mcp',
      ],
    ];
    for (const [options, message, option] of bad) {
      let thrown: unknown;
      try {
        resolveAgentOptions(options as never);
      } catch (error) {
        thrown = error;
      }
      expect(OptionError.isInstance(thrown)).toBe(true);
      expect((thrown as OptionError).code).toBe('INVALID_OPTION');
      // The option's own name is a field (mcp.maxServers is option "mcp"): programs branch on it.
      expect((thrown as OptionError).option).toBe(option);
      expect((thrown as Error).message).toMatch(message);
    }
  });

  it('gives a graph without a checkpointer a MemorySaver, and keeps the one given', () => {
    const bare = { ...graph } as Record<string, unknown>;
    const resolved = resolveAgentOptions({ name: 'a', version: '1', agent: bare as never });
    expect(resolved.checkpointer).toBeInstanceOf(MemorySaver);
    expect(bare.checkpointer).toBe(resolved.checkpointer);
    const saver = new MemorySaver();
    expect(
      resolveAgentOptions({ name: 'a', version: '1', agent: { ...graph } as never, checkpointer: saver })
        .checkpointer,
    ).toBe(saver);
  });
});
