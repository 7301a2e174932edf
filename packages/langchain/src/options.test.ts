import { MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { LangChainAgentError } from './errors.js';
import { resolveAgentOptions } from './options.js';

const graph = { stream: async () => [], getState: async () => ({ values: {} }) };

describe('resolveAgentOptions', () => {
  it('names the first bad option, what is allowed and what was given', () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ version: '1' }, /^name must be a non-empty string, got/],
      [{ name: 'a', version: '1', agent: {} }, /^agent must be a createAgent\(\.\.\.\) result/],
      [
        { name: 'a', version: '1', agent: graph, maxOpenSessions: 0 },
        /^maxOpenSessions must be a positive integer, got 0/,
      ],
      [
        { name: 'a', version: '1', agent: graph, checkpointer: {} },
        /^checkpointer must be a LangGraph checkpoint saver/,
      ],
      [
        { name: 'a', version: '1', agent: graph, mcp: { maxServers: -1 } },
        /^mcp\.maxServers must be a positive integer/,
      ],
    ];
    for (const [options, message] of bad) {
      let thrown: unknown;
      try {
        resolveAgentOptions(options as never);
      } catch (error) {
        thrown = error;
      }
      expect(LangChainAgentError.isInstance(thrown)).toBe(true);
      expect((thrown as LangChainAgentError).code).toBe('INVALID_OPTION');
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
