// Measurements on one open path, each bounded by a slice duration so paths can be interleaved A B C A B C.
import { type RpcClient, SINK_METHOD } from './rpc-client.js';

/** JSON params shaped like an ACP `session/update` agent message chunk, padded so the request is `bytes` long. */
export function echoParams(bytes: number): string {
  const skeleton = (text: string) =>
    `{"sessionId":"bench-session","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"${text}"}}}`;
  // The request envelope around the params: {"jsonrpc":"2.0","id":NNNNNN,"method":"_acpkit/bench_echo","params":…}
  const envelope = 64;
  const padding = Math.max(0, bytes - envelope - skeleton('').length);
  return skeleton('x'.repeat(padding));
}

const now = () => process.hrtime.bigint();

/**
 * Round trips with exactly one request in flight, for `sliceMs`; returns each round trip in microseconds.
 *
 * @example
 * ```ts
 * const samples = await measureRoundTrips(client, echoParams(360), 500);
 * ```
 */
export function measureRoundTrips(client: RpcClient, params: string, sliceMs: number): Promise<number[]> {
  const samples: number[] = [];
  const deadline = now() + BigInt(sliceMs) * 1_000_000n;
  const done = new Promise<number[]>((resolve) => {
    const next = () => {
      const started = now();
      client.send(params, () => {
        const finished = now();
        samples.push(Number(finished - started) / 1_000);
        if (finished < deadline) next();
        else resolve(samples);
      });
    };
    next();
  });
  return Promise.race([done, client.failed]);
}

/** Result of a pipelined slice. */
export interface Pipelined {
  messages: number;
  seconds: number;
  bytesPerMessage: number;
}

/**
 * Keeps `window` requests in flight for `sliceMs`, then drains; counts replies per second (the drain is counted,
 * so the rate is messages over the whole time including the tail).
 *
 * @example
 * ```ts
 * const { messages, seconds } = await measurePipelined(client, echoParams(360), 64, 500);
 * ```
 */
export function measurePipelined(
  client: RpcClient,
  params: string,
  window: number,
  sliceMs: number,
): Promise<Pipelined> {
  const started = now();
  const deadline = started + BigInt(sliceMs) * 1_000_000n;
  let completed = 0;
  let sent = 0;
  const bytesPerMessage = Buffer.byteLength(params) + 64;
  const done = new Promise<Pipelined>((resolve) => {
    let stopping = false;
    const onReply = () => {
      completed += 1;
      if (!stopping && now() >= deadline) stopping = true;
      if (!stopping) {
        sent += 1;
        client.send(params, onReply);
      } else if (completed === sent) {
        resolve({ messages: completed, seconds: Number(now() - started) / 1e9, bytesPerMessage });
      }
    };
    for (let index = 0; index < window; index += 1) {
      sent += 1;
      client.send(params, onReply);
    }
  });
  return Promise.race([done, client.failed]);
}

/**
 * Time for one message of `params` to be relayed to the far end, acknowledged there with a small reply
 * (`_acpkit/bench_sink`), in milliseconds: the big message travels one way.
 *
 * @example
 * ```ts
 * const milliseconds = await measureOne(client, echoParams(16 * 1024 * 1024 - 1024));
 * ```
 */
export async function measureOne(client: RpcClient, params: string): Promise<number> {
  const started = now();
  const reply = await callWithin(client, params, SINK_METHOD);
  const elapsed = Number(now() - started) / 1e6;
  // The far end must have seen the whole message (at least its padding text), not an error or a truncated line.
  const received = (JSON.parse(reply) as { result?: { receivedBytes?: number } }).result?.receivedBytes;
  if (typeof received !== 'number' || received < Buffer.byteLength(params) - 256) {
    throw new Error(`the sink did not acknowledge the whole message: ${reply.slice(0, 200)}`);
  }
  return elapsed;
}

/**
 * Time for one message of `params` to reach the far end and come back whole (the echo), in milliseconds, followed
 * by a small round trip that must be answered too: a large message in each direction, and the path still alive
 * after it (a replay buffer that fills on the way back must not stall the session).
 *
 * @example
 * ```ts
 * const milliseconds = await measureEcho(client, echoParams(16 * 1024 * 1024 - 1024));
 * ```
 */
export async function measureEcho(client: RpcClient, params: string): Promise<number> {
  const started = now();
  const reply = await callWithin(client, params);
  const elapsed = Number(now() - started) / 1e6;
  if (reply.length < params.length - 256) {
    throw new Error(
      `the echo came back short (${reply.length} of ${params.length} bytes): ${reply.slice(0, 200)}`,
    );
  }
  await callWithin(client, '{"after":"echo"}');
  return elapsed;
}

/** How long a single large message may take before the path counts as stalled. */
const STALL_MS = 60_000;

/** `client.call`, failing instead of waiting forever when no answer comes within {@link STALL_MS}. */
async function callWithin(client: RpcClient, params: string, method?: string): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${STALL_MS} ms: the path stalled`)),
      STALL_MS,
    );
  });
  try {
    return await Promise.race([client.call(params, method), stalled]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sends exactly `count` requests of `params` keeping `window` in flight, and resolves once every reply came: a fixed
 * amount of work, for counters that are read per message (instructions under callgrind).
 *
 * @example
 * ```ts
 * await measureCount(client, echoParams(16 * 1024), 16, 1000);
 * ```
 */
export function measureCount(
  client: RpcClient,
  params: string,
  window: number,
  count: number,
  method?: string,
): Promise<void> {
  let sent = 0;
  let completed = 0;
  const done = new Promise<void>((resolve) => {
    const onReply = () => {
      completed += 1;
      if (sent < count) {
        sent += 1;
        client.send(params, onReply, method);
      } else if (completed === count) resolve();
    };
    for (; sent < Math.min(window, count); ) {
      sent += 1;
      client.send(params, onReply, method);
    }
  });
  return Promise.race([done, client.failed]);
}
