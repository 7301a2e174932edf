import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ACPREMOTE_CLI,
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  spawnStdioPeer,
  startAcpremote,
} from './support/processes.js';
import { NIGHTLY, PROCESS_PROPERTY_RUNS } from './support/property-runs.js';

/** Requests and notifications (never `initialize`, which the mirror rewrites) with Unicode-rich params. */
const messageArbitrary = fc.record({
  kind: fc.constantFrom('request', 'notification'),
  method: fc.constantFrom('_test/chunked', '_vendor/ünïcødé', 'session/update'),
  params: fc.jsonValue({ maxDepth: 4, stringUnit: 'grapheme' }),
  ending: fc.constantFrom('\n', '\r\n'),
});

describe('random chunking of NDJSON through mirror → expose → agent and back (property)', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await killStartedProcesses();
  });

  it(
    'preserves every message, in order, whatever the chunk boundaries on both stdio sides',
    async () => {
      // The agent side re-cuts its output at random byte offsets; the test cuts the mirror's input at generated ones.
      server = await startAcpremote(['expose', '--', process.execPath, fixturePath('rechunking-cat.mjs')]);
      // The cat never answers a request (it sends each one back as a request): the mirror's bound on editor requests
      // waiting for an answer (256 by default) is raised past what the property sends.
      const mirror = spawnStdioPeer(process.execPath, [
        ACPREMOTE_CLI,
        'mirror',
        server.url,
        '--max-pending-requests',
        String(10 * 6 * PROCESS_PROPERTY_RUNS),
      ]);
      let caseNumber = 0;
      let received = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(messageArbitrary, { minLength: 1, maxLength: 6 }),
          fc.array(fc.nat(), { maxLength: 12 }),
          async (messages, cuts) => {
            caseNumber += 1;
            const sent = messages.map((message, index) => ({
              jsonrpc: '2.0',
              ...(message.kind === 'request' ? { id: `case-${caseNumber}-${index}` } : {}),
              method: message.method,
              params: { case: caseNumber, index, value: message.params },
            }));
            const bytes = Buffer.from(
              sent.map((message, index) => `${JSON.stringify(message)}${messages[index]!.ending}`).join(''),
            );
            const offsets = [...new Set(cuts.map((cut) => cut % bytes.length))].sort(
              (left, right) => left - right,
            );
            let start = 0;
            for (const offset of [...offsets, bytes.length]) {
              if (offset <= start) continue;
              mirror.child.stdin.write(bytes.subarray(start, offset));
              start = offset;
            }
            const expected = received + sent.length;
            await mirror.linesReached(expected, 10_000);
            const echoed = mirror.lines.slice(received, expected).map((line) => JSON.parse(line) as unknown);
            received = expected;
            expect(echoed).toEqual(sent.map((message) => JSON.parse(JSON.stringify(message)) as unknown));
          },
        ),
        { numRuns: PROCESS_PROPERTY_RUNS },
      );
      expect(mirror.nonJsonRpcLines).toEqual([]);
      expect(mirror.lines).toHaveLength(received);
      mirror.child.stdin.end();
      expect(await mirror.exited).toBe(0);
    },
    NIGHTLY ? 3_600_000 : 120_000,
  );
});
