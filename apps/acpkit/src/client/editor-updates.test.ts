import { describe, expect, it } from 'vitest';
import { Transcript } from './transcript.js';

describe('Transcript: the editor world', () => {
  it('shows locations, a diff of only the changed lines, an embedded terminal, usage, modes, options and commands', () => {
    const transcript = new Transcript();
    const output = [
      transcript.render({
        sessionUpdate: 'tool_call',
        toolCallId: 'e',
        title: 'Edit src/a.ts',
        kind: 'edit',
        status: 'in_progress',
        locations: [{ path: 'src/a.ts' }],
      }),
      transcript.render({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'e',
        content: [{ type: 'diff', path: '/repo/src/a.ts', oldText: 'a\nb\nc\n', newText: 'a\nB\nc\n' }],
        locations: [{ path: '/repo/src/a.ts', line: 2 }],
      }),
      transcript.render({ sessionUpdate: 'tool_call_update', toolCallId: 'e', status: 'completed' }),
      transcript.render({
        sessionUpdate: 'tool_call_update',
        toolCallId: 't',
        status: 'in_progress',
        content: [{ type: 'terminal', terminalId: 'term-1' }],
      }),
      transcript.render({
        sessionUpdate: 'usage_update',
        used: 1_100,
        size: 200_000,
        cost: { amount: 0.00792, currency: 'USD' },
      }),
      transcript.render({ sessionUpdate: 'current_mode_update', currentModeId: 'ask' }),
      transcript.render({
        sessionUpdate: 'config_option_update',
        configOptions: [
          {
            id: 'model',
            name: 'Model',
            category: 'model',
            type: 'select',
            currentValue: 'fast',
            options: [
              { value: 'fast', name: 'Fast' },
              { value: 'smart', name: 'Smart' },
            ],
          },
          { id: 'careful', name: 'Careful', type: 'boolean', currentValue: true },
        ],
      }),
      transcript.render({
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ name: 'review', description: 'Review a file', input: { hint: 'path' } }],
      }),
    ].join('');
    expect(output).toBe(
      [
        '⚙ Edit src/a.ts (edit) … in_progress — src/a.ts',
        '  --- /repo/src/a.ts:2',
        '  - b',
        '  + B',
        '✓ Edit src/a.ts completed',
        '… t in_progress',
        '  ▶ terminal term-1',
        'Context: 1,100 / 200,000 tokens (0.5%) · cost 0.0079 USD',
        'Mode: ask',
        'Options: Model = fast (fast, smart) · Careful = true — /set <option> <value> changes one',
        'Commands: /review <path> — Review a file',
        '',
      ].join('\n'),
    );
  });

  it('bounds a large diff to 40 changed lines and says how many more', () => {
    const transcript = new Transcript();
    const oldText = Array.from({ length: 100 }, (_, index) => `old ${index}`).join('\n');
    const newText = Array.from({ length: 100 }, (_, index) => `new ${index}`).join('\n');
    const output = transcript.render({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'e',
      content: [{ type: 'diff', path: '/big', oldText, newText }],
    });
    expect(output.split('\n')).toHaveLength(1 + 40 + 1 + 1);
    expect(output).toContain('  … 160 more changed lines');
  });
});
