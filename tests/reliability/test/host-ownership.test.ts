import { afterEach, describe, expect, it } from 'vitest';
import { killStartedProcesses, type RunningServer, waitFor } from './support/processes.js';
import { startRawAgentMirror } from './support/raw-agent-relay.js';

// Requests a hostile remote agent sends to the editor's host capabilities, in every shape a JSON parser accepts:
// number, string, 64-bit and object ids, a notification, escaped method names, duplicate `method` keys (first
// wins for some parsers, last for others) and unusual whitespace.
const hostileFrames = [
  '{"jsonrpc":"2.0","id":101,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/etc/passwd"}}',
  '{"jsonrpc":"2.0","id":"w1","method":"fs/write_text_file","params":{"sessionId":"s","path":"/tmp/x","content":"x"}}',
  '{"jsonrpc":"2.0","id":12345678901234567890,"method":"terminal/create","params":{"sessionId":"s","command":"rm"}}',
  '{"jsonrpc":"2.0","method":"terminal/kill","params":{"sessionId":"s","terminalId":"t"}}',
  '{"jsonrpc":"2.0","id":105,"method":"fs\\/read_text_file","params":{}}',
  '{"jsonrpc":"2.0","id":106,"method":"session/update","method":"fs/read_text_file","params":{}}',
  '{"jsonrpc":"2.0","id":107,"method":"fs/read_text_file","method":"_x/harmless","params":{}}',
  '{"jsonrpc":"2.0","id":{"x":1},"method":"fs/read_text_file","params":{}}',
  '{ "jsonrpc" : "2.0" , "method" : "terminal/output" , "id" : 108 }',
  '{"jsonrpc":"2.0","id":109,"method":"\\u0066s/read_text_file"}',
];
/** The id token each request above must be answered with (the object id cannot be echoed: `null`). */
const expectedErrorIds = ['101', '"w1"', '12345678901234567890', '105', '106', '107', 'null', '108', '109'];
const harmless = '{"jsonrpc":"2.0","id":110,"method":"_x/allowed","params":{}}';

const initializeParams = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
};

describe('host ownership (issue 14 item 1)', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  async function start(mirrorFlags: string[]) {
    const { server, editor } = await startRawAgentMirror(mirrorFlags, servers);
    expect((await editor.request('initialize', initializeParams)).result).toBeDefined();
    return { server, editor };
  }

  it('with `remote` ownership, answers fs/* and terminal/* requests from the remote itself and never forwards them', async () => {
    const { editor } = await start([]);
    const emitted = await editor.request('_test/emit', { lines: [...hostileFrames, harmless] });
    expect(emitted.result).toEqual({ emitted: hostileFrames.length + 1 });
    // The agent wrote its frames before its answer, and the relay keeps order: everything that was going to reach
    // the editor has reached it by now. The harmless request did; no host request did.
    await waitFor(
      () => editor.lines.some((line) => line.includes('_x/allowed')),
      5_000,
      () => 'harmless request not relayed',
    );
    const hostRequests = editor.lines.filter((line) => /fs\\?\/|terminal\/|\\u0066s/.test(line));
    expect(hostRequests).toEqual([]);

    // The agent got one method-not-found error per request, each with its id exactly as sent.
    const { result } = await editor.request('_test/received', {});
    const errors = (result as { lines: string[] }).lines.filter((line) => line.includes('-32601'));
    expect(errors.map((line) => /"id":(null|-?\d+|"[^"]*")/.exec(line)?.[1])).toEqual(expectedErrorIds);
    for (const line of errors) expect(line).toMatch(/"method":"(fs|terminal)\//);
    expect(editor.stderr()).toMatch(/host ownership/);
    expect(editor.nonJsonRpcLines).toEqual([]);
  });

  it('with `client-passthrough` ownership, relays them to the editor unchanged', async () => {
    const { editor } = await start(['--host-ownership', 'client-passthrough']);
    await editor.request('_test/emit', { lines: [hostileFrames[0], hostileFrames[2]] });
    await waitFor(
      () => editor.lines.filter((line) => /fs\/|terminal\//.test(line)).length === 2,
      5_000,
      () => `editor lines: ${editor.lines.join('\n')}`,
    );
    expect(editor.lines).toContain(hostileFrames[0]);
    expect(editor.lines).toContain(hostileFrames[2]);
  });
});
