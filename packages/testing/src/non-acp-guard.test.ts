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

  it('never cuts a URL: whole arguments go instead, marked with …', () => {
    const url = 'ws://127.0.0.1:43567/acp/ws';
    const mirror = [
      '/usr/local/bin/acpkit',
      'run',
      '--addr',
      url,
      '--token-env',
      'ACPREMOTE_TOKEN',
      '--unstable-protocol',
    ];
    expect(describeCommand(mirror)).toBe(`acpkit run --addr ${url} --token-env ACPREMOTE_TOKEN …`);
    const long = `wss://acp.example.com:8443/${'deep/'.repeat(20)}acp/ws`;
    const text = describeCommand(['node', '/opt/agents/mirror.js', '--addr', long, '--token-env', 'TOKEN']);
    expect(text).toBe(`node …/mirror.js --addr ${long} --token-env TOKEN`);
    // A URL longer than the limit still leaves room for the command around it.
    const longUrl = `https://example.com/${'x'.repeat(90)}`;
    expect(describeCommand(['acpremote', 'mirror', longUrl, '--ca', 'ca.pem'])).toBe(
      `acpremote mirror ${longUrl} --ca ca.pem`,
    );
  });
});
