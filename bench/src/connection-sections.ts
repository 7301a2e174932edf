// Connection-level figures: connect/disconnect churn per second and heap per idle WebSocket connection, each
// against a bare `ws` server as the same-run baseline.
import { once } from 'node:events';
import { Agent, type IncomingMessage, request } from 'node:http';
import WebSocket from 'ws';
import { benchToken } from './hosts/bench-token.js';
import { type RunningHost, startHost } from './hosts/spawn-host.js';
import type { FigureRecord } from './report.js';

const initializeRequest = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: 1, clientCapabilities: {} },
});

/**
 * One full connection life: open, `initialize` and wait for the answer (so the server really set the connection
 * up: an SDK connection, or a spawned child), close, and wait for the close handshake.
 */
async function openInitialized(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, {
    perMessageDeflate: false,
    headers: { Authorization: `Bearer ${benchToken}` },
  });
  socket.on('error', () => {});
  await once(socket, 'open');
  const answered = once(socket, 'message');
  socket.send(initializeRequest);
  await answered;
  return socket;
}

/** An idle Streamable HTTP connection: initialized, its connection stream open (an SSE response nobody writes to). */
interface IdleHttpConnection {
  readonly connectionId: string;
  readonly stream: IncomingMessage;
}

const postAgent = new Agent({ keepAlive: true, maxSockets: 8 });

/** `initialize` POSTed, then the connection stream's GET (on its own socket), answered with its head. */
async function openHttpInitialized(url: string): Promise<IdleHttpConnection> {
  const auth = { Authorization: `Bearer ${benchToken}` };
  const connectionId = await new Promise<string>((resolve, reject) => {
    const outgoing = request(url, {
      method: 'POST',
      agent: postAgent,
      headers: {
        ...auth,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(initializeRequest),
      },
    });
    outgoing.once('response', (response) => {
      response.resume();
      const id = response.headers['acp-connection-id'];
      if (response.statusCode === 200 && typeof id === 'string') resolve(id);
      else reject(new Error(`initialize answered HTTP ${response.statusCode}`));
    });
    outgoing.once('error', reject);
    outgoing.end(initializeRequest);
  });
  const stream = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = request(url, {
      method: 'GET',
      agent: false,
      headers: { ...auth, Accept: 'text/event-stream', 'Acp-Connection-Id': connectionId },
    });
    outgoing.once('response', (response) => {
      if (response.statusCode === 200) resolve(response);
      else reject(new Error(`the event stream answered HTTP ${response.statusCode}`));
    });
    outgoing.once('error', reject);
    outgoing.end();
  });
  stream.on('error', () => {});
  return { connectionId, stream };
}

async function closeHttp(url: string, connection: IdleHttpConnection): Promise<void> {
  connection.stream.destroy();
  await new Promise<void>((resolve) => {
    const outgoing = request(url, {
      method: 'DELETE',
      agent: postAgent,
      headers: { Authorization: `Bearer ${benchToken}`, 'Acp-Connection-Id': connection.connectionId },
    });
    outgoing.once('response', (response) => {
      response.resume();
      resolve();
    });
    outgoing.once('error', () => resolve());
    outgoing.end();
  });
}

async function closeSocket(socket: WebSocket): Promise<void> {
  if (socket.readyState === WebSocket.CLOSED) return;
  const closed = once(socket, 'close');
  socket.close(1000, 'bench done');
  await closed;
}

interface ChurnTarget {
  path: string;
  label: string;
  start(): Promise<RunningHost>;
}

const churnTargets: ChurnTarget[] = [
  {
    path: 'ws-hop',
    label: 'raw ws server (connect, echo, close)',
    start: () => startHost('raw-ws-echo-host'),
  },
  {
    path: 'serve-acp',
    label: 'serveAcp: connect, initialize, close',
    start: () => startHost('serve-acp-host'),
  },
  {
    path: 'serve-command',
    // `cat` is a perfect and very cheap stdio "agent" here: the figure is the relay's per-connection cost plus
    // one spawn, not Node's 30 ms start-up.
    label: 'serveCommand (`cat`): connect, spawn, initialize, close, reap',
    start: () => startHost('serve-command-host', ['--', 'cat']),
  },
];

/**
 * Connect/disconnect cycles per second, one connection at a time, in interleaved slices.
 *
 * @example
 * ```ts
 * const records = await runChurnSection({ repeats: 5, sliceMs: 1000, log: console.error });
 * ```
 */
export async function runChurnSection(options: {
  repeats: number;
  sliceMs: number;
  log: (line: string) => void;
}): Promise<FigureRecord[]> {
  const hosts = new Map<string, RunningHost>();
  const rates = new Map<string, number[]>();
  try {
    for (const target of churnTargets) hosts.set(target.path, await target.start());
    for (let round = 0; round <= options.repeats; round += 1) {
      for (const target of churnTargets) {
        const url = hosts.get(target.path)!.url;
        const started = performance.now();
        const deadline = started + (round === 0 ? options.sliceMs / 2 : options.sliceMs);
        let cycles = 0;
        while (performance.now() < deadline) {
          await closeSocket(await openInitialized(url));
          cycles += 1;
        }
        if (round > 0)
          rates.set(target.path, [
            ...(rates.get(target.path) ?? []),
            cycles / ((performance.now() - started) / 1000),
          ]);
      }
    }
  } finally {
    for (const host of hosts.values()) await host.close();
  }
  options.log('churn done');
  const baseline = rates.get('ws-hop')!;
  return churnTargets.map((target) => ({
    section: 'connections',
    path: target.path,
    pathLabel: target.label,
    figure: 'churn-per-s',
    unit: 'cycles/s',
    kind: 'rate' as const,
    values: rates.get(target.path)!,
    ...(target.path === 'ws-hop' ? {} : { baselineValues: baseline, baselineLabel: 'raw ws server' }),
  }));
}

/**
 * Heap (after full GC) per idle WebSocket connection with `connections` connections held by one server process.
 *
 * @example
 * ```ts
 * const records = await runMemorySection({ repeats: 3, connections: 1000, log: console.error });
 * ```
 */
export async function runMemorySection(options: {
  repeats: number;
  connections: number;
  log: (line: string) => void;
}): Promise<FigureRecord[]> {
  interface MemoryTarget {
    path: string;
    label: string;
    /** The reference the figures are divided by (a raw server of the same transport). */
    baseline: string;
    start(): Promise<RunningHost>;
    /** Opens one idle connection; returns what closes it. */
    open(url: string): Promise<() => Promise<void>>;
  }
  const webSocket = async (url: string) => {
    const socket = await openInitialized(url);
    return () => closeSocket(socket);
  };
  const streamableHttp = async (url: string) => {
    const connection = await openHttpInitialized(url);
    return () => closeHttp(url, connection);
  };
  const targets: MemoryTarget[] = [
    {
      path: 'ws-hop',
      label: 'raw ws server, idle connections',
      baseline: 'ws-hop',
      start: () => startHost('raw-ws-echo-host'),
      open: webSocket,
    },
    {
      path: 'serve-acp',
      label: 'serveAcp, idle initialized connections',
      baseline: 'ws-hop',
      start: () => startHost('serve-acp-host'),
      open: webSocket,
    },
    {
      path: 'serve-command',
      label: 'serveCommand (`cat`), idle connections (relay heap only, children excluded)',
      baseline: 'ws-hop',
      start: () => startHost('serve-command-host', ['--', 'cat']),
      open: webSocket,
    },
    {
      path: 'sdk-acp-server-http',
      label: 'SDK AcpServer, idle initialized Streamable HTTP connections (connection stream open)',
      baseline: 'sdk-acp-server-http',
      start: () => startHost('sdk-acp-server-host'),
      open: streamableHttp,
    },
    {
      path: 'serve-acp-http',
      label: 'serveAcp, idle initialized Streamable HTTP connections (connection stream open)',
      baseline: 'sdk-acp-server-http',
      start: () => startHost('serve-acp-host', ['--http']),
      open: streamableHttp,
    },
  ];
  const heap = new Map<string, number[]>();
  const rss = new Map<string, number[]>();
  for (let round = 0; round < options.repeats; round += 1) {
    for (const target of targets) {
      // serveCommand holds one `cat` per connection: keep that figure to a tenth of the connections.
      const count = target.path === 'serve-command' ? options.connections / 10 : options.connections;
      const host = await target.start();
      const closers: Array<() => Promise<void>> = [];
      try {
        // Warm the server's code paths first so JIT and lazily created structures are not counted per connection.
        for (let index = 0; index < 20; index += 1) await (await target.open(host.url))();
        const before = await host.memory();
        // Batches of 50 stay under the servers' cap of plain HTTP connections being set up (64).
        for (let batch = 0; batch < count; batch += 50) {
          const size = Math.min(50, count - batch);
          closers.push(...(await Promise.all(Array.from({ length: size }, () => target.open(host.url)))));
        }
        const after = await host.memory();
        heap.set(target.path, [
          ...(heap.get(target.path) ?? []),
          (after.heapUsed - before.heapUsed) / count / 1024,
        ]);
        rss.set(target.path, [...(rss.get(target.path) ?? []), (after.rss - before.rss) / count / 1024]);
      } finally {
        await Promise.all(closers.map((close) => close()));
        await host.close();
      }
    }
    options.log(`memory round ${round + 1}/${options.repeats} done`);
  }
  const records: FigureRecord[] = [];
  for (const [figure, values, unit] of [
    ['heap-per-idle-connection-kib', heap, 'KiB heap'],
    ['rss-per-idle-connection-kib', rss, 'KiB RSS'],
  ] as const) {
    for (const target of targets) {
      records.push({
        section: 'connections',
        path: target.path,
        pathLabel: target.label,
        figure,
        unit,
        kind: 'size',
        values: values.get(target.path)!,
        ...(target.path === target.baseline
          ? {}
          : {
              baselineValues: values.get(target.baseline)!,
              baselineLabel: target.baseline === 'ws-hop' ? 'raw ws server' : 'SDK AcpServer',
            }),
      });
    }
  }
  return records;
}
