// Large messages through the real chain with the default flags (resume on, 16 MiB replay buffers, 16 MiB message
// limit): raw JSON-RPC client → mirror CLI → WebSocket → `acpremote expose` → probe agent, which echoes what it gets.
// A message bigger than what the replay buffer holds before it pauses its source must not stall the session: every
// later message is answered too (issue 19, item 1).
import { afterEach, describe, expect, it } from 'vitest';
import { INITIALIZE_WITH_FORMS } from './support/json-rpc-peer.js';
import { fixturePath } from './support/paths.js';
import { reapAll } from './support/processes.js';
import { type MirrorCli, spawnMirrorPeer, startExpose } from './support/remote-servers.js';

const probeAgent = [process.execPath, fixturePath('remote-probe-agent.js')];
const mirrors: MirrorCli[] = ['acpkit run --addr', 'acpremote mirror'];

afterEach(async () => {
  await reapAll();
});

/** Round trips of these sizes, in order: small, 1 MiB, one past the replay buffer's pause mark (15 MiB), small. */
const SIZES = [300, 1024 * 1024, 16_500_000, 300, 300];

describe.each(mirrors)('through %s with the default flags', (mirrorCli) => {
  it('answers every message after one larger than the replay buffer holds before it pauses', async () => {
    const server = await startExpose(probeAgent);
    const { peer } = spawnMirrorPeer(mirrorCli, server.url);
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();

    for (const [index, size] of SIZES.entries()) {
      const extra = 'x'.repeat(size);
      const answer = await peer.request(index + 1, '_vendor/ping', { nonce: `n-${index}`, extra });
      expect(answer.error).toBeUndefined();
      const result = answer.result as { pong: string; unknownFieldEcho: string };
      expect(result.pong).toBe(`n-${index}`);
      // Compared by length and ends: printing a 16 MB string on failure helps nobody.
      expect(result.unknownFieldEcho.length).toBe(size);
      expect(result.unknownFieldEcho === extra).toBe(true);
    }
    expect(server.process.stderr()).not.toMatch(/ warn: | error: /);
  });
});
