import { isUtf8 } from 'node:buffer';
import { PassThrough } from 'node:stream';
import { RequestError } from '@agentclientprotocol/sdk';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FrameLog } from '../src/relay/frame-log.js';
import { Relay } from '../src/relay/relay-core.js';
import { FrameScanner } from '../src/wire/frame-scan.js';
import type { FrameRules, Refusal } from '../src/wire/inbound.js';
import { errorResponseText, parseFrame } from '../src/wire/json-rpc.js';
import {
  AGENT_RULES,
  EDITOR_RULES,
  memoryLogger,
  openSocketPair,
  plainPort,
  WEBSOCKET_RULES,
} from './support/relay-pair.js';

const RUNS = Number(process.env.ACPKIT_PROPERTY_RUNS ?? 150);
const SCAN_RUNS = Number(process.env.ACPKIT_PROPERTY_RUNS ?? 5_000);

// Frame content: valid objects (compact, indented with raw line breaks, padded with whitespace), one-character
// mutations of them, other JSON values, arbitrary text (control characters, lone surrogates) and raw bytes that are
// not UTF-8, sometimes behind a byte order mark.
const object = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
const objectText = fc
  .tuple(object, fc.constantFrom(undefined, 1, '\t'), fc.constantFrom('', ' ', '\t', '\r'))
  .map(([value, indent, padding]) => `${padding}${JSON.stringify(value, null, indent)}${padding}`);
const mutated = fc
  .tuple(
    objectText,
    fc.nat(),
    fc.constantFrom('', '"', '\\', '{', '}', '[', ']', ',', ':', '\u0001', '\n', 'é', '0'),
  )
  .map(([text, at, insert]) => {
    const index = at % (text.length + 1);
    return text.slice(0, index) + insert + text.slice(index + (at % 2));
  });
// Long strings take the scanner's native-search path: put one special character anywhere in a long run.
const longString = fc
  .tuple(
    fc.integer({ min: 0, max: 160 }),
    fc.constantFrom('', '"', '\\', '\\"', '\\u00e9', '\\u12', '\u0001', '\u001f', '\t', 'é', '✓', '\u007f'),
    fc.integer({ min: 0, max: 160 }),
  )
  .map(([before, special, after]) => `{"a":"${'x'.repeat(before)}${special}${'y'.repeat(after)}"}`);
const frameText = fc.oneof(
  { weight: 4, arbitrary: objectText },
  { weight: 2, arbitrary: longString },
  { weight: 3, arbitrary: mutated },
  { weight: 1, arbitrary: fc.json({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);
const frameBytes = fc.oneof(
  { weight: 8, arbitrary: frameText.map((text) => Buffer.from(text)) },
  {
    weight: 1,
    arbitrary: frameText.map((text) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])),
  },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ maxLength: 12 })
      .map((bytes) => Buffer.concat([Buffer.from('{"a":"'), bytes, Buffer.from('"}')])),
  },
);

/** What a straightforward relay does with one frame: `JSON.parse` the text and forward it or name the error. */
function reference(
  bytes: Buffer,
  rules: FrameRules,
): { forward: string } | { refusal: Pick<Refusal, 'reason' | 'error'> } {
  let frame = bytes;
  if (rules.stripByteOrderMark && frame.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])))
    frame = frame.subarray(3);
  if (rules.utf8 === 'refuse' && !isUtf8(frame))
    return { refusal: { reason: 'utf8', error: RequestError.parseError() } };
  const text = frame.toString('utf8');
  const parsed = parseFrame(text);
  if (!parsed.ok) return { refusal: { reason: parsed.reason, error: parsed.error } };
  return { forward: rules.singleLine ? text.replace(/[\r\n]/g, ' ') : text };
}

const LINE_END_MARKER = '"end-of-lines"';
const FRAME_END_MARKER = '"end-of-frames"';

describe('the relay core against a straightforward reference (property)', () => {
  let pairs: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const pair of pairs) await pair.close();
    pairs = [];
  });

  it.each(['auto', 'javascript'] as const)(
    'scans exactly what JSON.parse accepts as one object (%s scan)',
    (engine) => {
      const scanner = new FrameScanner(undefined, engine);
      fc.assert(
        fc.property(frameBytes, (bytes) => {
          if (!isUtf8(bytes)) return;
          const parsed = parseFrame(bytes.toString('utf8'));
          expect(scanner.scan(bytes)).toBe(parsed.ok);
          if (!parsed.ok)
            expect(
              scanner.topLevel === 'invalid'
                ? 'parse'
                : scanner.topLevel === 'array'
                  ? 'batch'
                  : 'not-object',
            ).toBe(parsed.reason);
        }),
        { numRuns: SCAN_RUNS },
      );
    },
  );

  it('relays random frames in randomly chunked lines and in WebSocket frames like JSON.parse would: same frames out, same refusals', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(frameBytes, { maxLength: 12 }),
        fc.array(frameText, { maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 80 }), { minLength: 1, maxLength: 20 }),
        fc.boolean(),
        fc.boolean(),
        async (lineFrames, socketFrames, cuts, agentRules, crlf) => {
          const pair = await openSocketPair();
          pairs.push(pair);
          const input = new PassThrough();
          const output = new PassThrough();
          const lineRules = agentRules ? AGENT_RULES : EDITOR_RULES;
          const lineRefusals: string[] = [];
          const log = new FrameLog(memoryLogger());
          const relay = new Relay({
            port: plainPort(pair.server, log),
            input,
            output,
            maxMessageBytes: 1024 * 1024,
            log,
            lineNames: { input: 'input', output: 'output' },
            fromPort: { rules: WEBSOCKET_RULES, sender: 'client' },
            fromLines: {
              rules: lineRules,
              sender: 'lines',
              oversize: () => {},
              ...(agentRules ? { refused: (refusal: Refusal) => lineRefusals.push(refusal.reason) } : {}),
            },
          });
          relay.start();
          const outputLines: string[] = [];
          let pending = '';
          output.on('data', (chunk: Buffer) => {
            const parts = (pending + chunk.toString('utf8')).split('\n');
            pending = parts.pop() ?? '';
            outputLines.push(...parts);
          });
          const clientFrames: string[] = [];
          pair.client.on('message', (data: Buffer) => clientFrames.push(data.toString('utf8')));

          // Expected, from the reference: split the byte stream into lines exactly as NDJSON readers do.
          const separator = Buffer.from(crlf ? '\r\n' : '\n');
          const stream = Buffer.concat(
            [...lineFrames, Buffer.from('{"sentinel":"lines"}'), Buffer.from(LINE_END_MARKER)].flatMap(
              (frame) => [frame, separator],
            ),
          );
          const expectedFrames: string[] = [];
          const expectedLineReplies: string[] = [];
          const expectedRefusals: string[] = [];
          let start = 0;
          for (let index = stream.indexOf(0x0a); index !== -1; index = stream.indexOf(0x0a, start)) {
            let line = stream.subarray(start, index);
            start = index + 1;
            if (line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
            if (line.length === 0) continue;
            const outcome = reference(line, lineRules);
            if ('forward' in outcome) expectedFrames.push(outcome.forward);
            else if (agentRules) expectedRefusals.push(outcome.refusal.reason);
            else expectedLineReplies.push(errorResponseText('null', outcome.refusal.error));
          }
          const expectedLines: string[] = [];
          const expectedFrameReplies: string[] = [];
          for (const text of [...socketFrames, '{"sentinel":"frames"}', FRAME_END_MARKER]) {
            const outcome = reference(Buffer.from(text), WEBSOCKET_RULES);
            if ('forward' in outcome) expectedLines.push(outcome.forward);
            else expectedFrameReplies.push(errorResponseText('null', outcome.refusal.error));
          }

          // Feed both directions: the line stream in random chunks, the frames one by one.
          let offset = 0;
          for (let cut = 0; offset < stream.length; cut += 1) {
            const size = cuts[cut % cuts.length]!;
            input.write(stream.subarray(offset, offset + size));
            offset += size;
          }
          for (const text of socketFrames) pair.client.send(text);
          pair.client.send('{"sentinel":"frames"}');
          pair.client.send(FRAME_END_MARKER);

          const linesDone = () =>
            clientFrames.includes('{"sentinel":"lines"}') &&
            (agentRules
              ? lineRefusals.length === expectedRefusals.length
              : outputLines.some((line) => line.includes('end-of-lines')));
          const framesDone = () =>
            outputLines.includes('{"sentinel":"frames"}') &&
            clientFrames.some((frame) => frame.includes('end-of-frames'));
          const deadline = Date.now() + 10_000;
          while (!(linesDone() && framesDone()) && Date.now() < deadline) {
            await new Promise((resolve) => setImmediate(resolve));
          }
          const isReply = (text: string) => text.startsWith('{"jsonrpc":"2.0","id":null,"error":');
          expect(clientFrames.filter((frame) => !isReply(frame))).toEqual(expectedFrames);
          expect(clientFrames.filter(isReply)).toEqual(expectedFrameReplies);
          expect(outputLines.filter((line) => !isReply(line))).toEqual(expectedLines);
          expect(outputLines.filter(isReply)).toEqual(expectedLineReplies);
          expect(lineRefusals).toEqual(expectedRefusals);
          await pair.close();
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
