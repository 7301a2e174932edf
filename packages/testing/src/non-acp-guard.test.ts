import { describe, expect, it } from 'vitest';
import { describeCommand } from './non-acp-guard.js';

describe('describeCommand', () => {
  it('shows the program by its base name and quotes arguments with spaces', () => {
    expect(describeCommand(['/usr/bin/node', 'agent.js', '--name', 'my agent', ''])).toBe(
      'node agent.js --name "my agent" ""',
    );
  });

  it('cuts a long command in the middle, keeping the script name at the end', () => {
    const text = describeCommand(['node', `/very/long/${'nested/'.repeat(20)}agent.mjs`, 'scenario']);
    expect(text).toHaveLength(80);
    expect(text.startsWith('node /very/long/nested/nested/')).toBe(true);
    expect(text.endsWith('nested/agent.mjs scenario')).toBe(true);
    expect(text).toContain('…');
  });
});
