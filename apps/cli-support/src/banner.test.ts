import { describe, expect, it } from 'vitest';
import { formatServeBanner, SUGGESTED_TOKEN_VARIABLE } from './banner.js';

const url = 'ws://127.0.0.1:43117/acp/ws';

describe('formatServeBanner', () => {
  it('starts with the serving line and a mirror line without token flags when there is no token', () => {
    expect(formatServeBanner(url, undefined)).toEqual([
      `Serving ACP WebSocket at ${url}`,
      `Connect an editor with: acpremote mirror ${url}`,
    ]);
  });

  it("suggests the serving CLI's own mirror command", () => {
    const token = { token: 'sekret-value', source: 'environment', variable: 'MY_TOKEN' } as const;
    expect(formatServeBanner(url, token, 'acpkit')[1]).toBe(
      `Connect an editor with: acpkit run --addr ${url} --token-env MY_TOKEN`,
    );
    expect(formatServeBanner(url, token, 'acpremote')[1]).toBe(
      `Connect an editor with: acpremote mirror ${url} --token-env MY_TOKEN`,
    );
  });

  it('references the --token-env variable, never the token', () => {
    const lines = formatServeBanner(url, {
      token: 'sekret-value',
      source: 'environment',
      variable: 'MY_TOKEN',
    });
    expect(lines[1]).toBe(`Connect an editor with: acpremote mirror ${url} --token-env MY_TOKEN`);
    expect(lines.join('\n')).not.toContain('sekret-value');
  });

  it('tells the user to move a --bearer-token value into an environment variable', () => {
    const lines = formatServeBanner(url, { token: 'sekret-value', source: 'flag' });
    expect(lines[1]).toContain(`--token-env ${SUGGESTED_TOKEN_VARIABLE}`);
    expect(lines[2]).toContain(`${SUGGESTED_TOKEN_VARIABLE} environment variable`);
    expect(lines.join('\n')).not.toContain('sekret-value');
  });

  it('references a --token-file by its path and passes on its warning', () => {
    const lines = formatServeBanner(url, {
      token: 'sekret-value',
      source: 'file',
      file: '/run/secrets/acp',
      warning:
        'Warning: the token file /run/secrets/acp can be read by other users (mode 644); chmod 600 it.',
    });
    expect(lines.slice(1)).toEqual([
      `Connect an editor with: acpremote mirror ${url} --token-file /run/secrets/acp`,
      'Warning: the token file /run/secrets/acp can be read by other users (mode 644); chmod 600 it.',
    ]);
    expect(lines.join('\n')).not.toContain('sekret-value');
  });

  it('suggests a variable for a token read from stdin', () => {
    const lines = formatServeBanner(url, { token: 'sekret-value', source: 'file', file: '-' });
    expect(lines.slice(1)).toEqual([
      `Connect an editor with: acpremote mirror ${url} --token-env ${SUGGESTED_TOKEN_VARIABLE}`,
      `Put the bearer token in the ${SUGGESTED_TOKEN_VARIABLE} environment variable on the editor's machine before running that line.`,
    ]);
  });

  it('counts a bracketed IPv6 loopback as loopback', () => {
    expect(formatServeBanner('ws://[::1]:8080/acp/ws', undefined)).toHaveLength(2);
  });

  it('asks for a real address and warns about missing auth on a wildcard bind', () => {
    const lines = formatServeBanner('ws://0.0.0.0:8080/acp/ws', undefined);
    expect(lines).toContain("Replace 0.0.0.0 in that URL with this machine's name or address.");
    expect(lines.some((line) => line.startsWith('Warning: no bearer token'))).toBe(true);
  });
});
