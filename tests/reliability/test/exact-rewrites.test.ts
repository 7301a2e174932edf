import { afterEach, describe, expect, it } from 'vitest';
import { killStartedProcesses, type RunningServer } from './support/processes.js';
import { startRawAgentMirror } from './support/raw-agent-relay.js';

// Numbers a JSON.parse/JSON.stringify round trip changes: beyond 2^53, and a fraction with a trailing zero.
const BIG_ID = '12345678901234567890';
const BIG_META = '{"n":9007199254740993,"f":1.10,"e":1E+2}';

describe('the mirror rewrites only what it means to change (issue 14 item 10)', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  it('keeps 64-bit ids and _meta numbers byte for byte through every rewrite and every reply it writes itself', async () => {
    const { editor, send, answer: answerTo } = await startRawAgentMirror(['--latency-meta'], servers);

    const initialize = `{"jsonrpc":"2.0","id":${BIG_ID},"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":true},"_meta":${BIG_META}}}`;
    send(initialize);
    expect(await answerTo(BIG_ID)).toContain('"protocolVersion":1');

    const sessionNew = `{"jsonrpc":"2.0","id":${BIG_ID.replace(/0$/, '1')},"method":"session/new","params":{"cwd":"/local/path","mcpServers":[],"_meta":${BIG_META}}}`;
    send(sessionNew);
    expect(await answerTo(BIG_ID.replace(/0$/, '1'))).toContain('"ok":true');

    // An unstable method (gated by default) is answered by the mirror itself: the id must come back unchanged.
    send(
      `{"jsonrpc":"2.0","id":${BIG_ID.replace(/0$/, '2')},"method":"session/fork","params":{"sessionId":"s"}}`,
    );
    expect(await answerTo(BIG_ID.replace(/0$/, '2'))).toContain('-32601');

    // A session/update from the agent gets latency meta added next to the numbers already in its _meta.
    const update = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}},"_meta":${BIG_META}}}`;
    await editor.request('_test/emit', { lines: [update] });
    const relayed = editor.lines.find((line) => line.includes('"agent_message_chunk"'))!;
    expect(relayed).toContain('"acpkit.dev/transport-latency"');
    expect(relayed).toContain('"n":9007199254740993,"f":1.10,"e":1E+2');

    const { result } = await editor.request('_test/received', {});
    const received = (result as { lines: string[] }).lines;
    const relayedInitialize = received.find((line) => line.includes('"initialize"'))!;
    // Only the capabilities changed; everything else is the editor's bytes.
    expect(relayedInitialize).toBe(
      initialize.replace(
        '"fs":{"readTextFile":true},"terminal":true',
        '"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false',
      ),
    );
    const relayedSessionNew = received.find((line) => line.includes('"session/new"'))!;
    expect(relayedSessionNew).toBe(sessionNew.replace('"/local/path"', JSON.stringify(process.cwd())));
  }, 60_000);
});
