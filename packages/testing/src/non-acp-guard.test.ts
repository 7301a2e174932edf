import { describe, expect, it } from 'vitest';
import { describeCommand, quoteCommand } from './non-acp-guard.js';

describe('describeCommand', () => {
  it('shows the program by its base name and single-quotes arguments a shell would split or read', () => {
    expect(describeCommand(['/usr/bin/node', 'agent.js', '--name', 'my agent', ''])).toBe(
      "node agent.js --name 'my agent' ''",
    );
    expect(describeCommand(['node', '-e', 'process.stdout.write("hi")'])).toBe(
      `node -e 'process.stdout.write("hi")'`,
    );
    expect(describeCommand(['sh', '-c', "echo 'it''s'"])).toBe(`sh -c 'echo '\\''it'\\'''\\''s'\\'''`);
    expect(describeCommand(['node', '--import=tsx', './src/agent.ts:createAgent'])).toBe(
      'node --import=tsx ./src/agent.ts:createAgent',
    );
  });

  it('sets a command off with typographic quotes, so quotes inside it stay readable', () => {
    expect(quoteCommand(['node', '-e', 'process.stdout.write("hi")'])).toBe(
      `“node -e 'process.stdout.write("hi")'”`,
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
