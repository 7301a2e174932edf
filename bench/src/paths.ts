// The paths the bench measures: two raw hops, the minimal reference relay and chain, and our three relays.
import { fileURLToPath } from 'node:url';
import { benchToken } from './hosts/bench-token.js';
import { profilingFlags, type RunningHost, startHost } from './hosts/spawn-host.js';
import { RpcClient } from './rpc-client.js';
import { type MessageEndpoint, openWebSocketEndpoint, spawnStdioEndpoint } from './transports.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const host = (name: string) => fileURLToPath(new URL(`./hosts/${name}`, import.meta.url));

/** The raw hops our paths are built from. */
export type HopId = 'stdio-hop' | 'ws-hop';
export type PathId =
  | HopId
  | 'serve-command'
  | 'serve-command-metrics'
  | 'chain'
  | 'serve-acp'
  | 'minimal-relay'
  | 'minimal-chain';

/** One measured path. */
export interface PathDefinition {
  id: PathId;
  label: string;
  /** Raw hops whose same-run figures combine into this path's baseline (empty for a baseline itself). */
  hops: HopId[];
  /**
   * The same-shape minimal reference measured in the same repeats: the baseline the targets are stated against
   * (what our checks, policies and safety cost on top of the fastest bare forwarding).
   */
  reference?: PathId;
  open(): Promise<OpenPath>;
}

/** An open driver connection to a path plus everything it started. */
export interface OpenPath {
  client: RpcClient;
  close(): Promise<void>;
}

const initializeParams = JSON.stringify({
  protocolVersion: 1,
  clientCapabilities: {},
  clientInfo: { name: 'acpkit-bench', version: '0.0.0' },
});

/** Opens the connection, runs `initialize` (relays and SDK servers need it first) and checks one echo. */
async function connect(endpoint: MessageEndpoint, others: RunningHost[], label: string): Promise<OpenPath> {
  const client = new RpcClient(endpoint);
  const close = async () => {
    await endpoint.close();
    for (const other of others) await other.close();
  };
  try {
    await client.call(initializeParams, 'initialize');
    const probe = JSON.stringify({ probe: `${label}-${Math.random()}`, unicode: 'é✓' });
    const reply = JSON.parse(await client.call(probe)) as { result?: unknown; params?: unknown };
    const echoed = JSON.stringify(reply.result ?? reply.params);
    if (echoed !== probe) throw new Error(`${label} did not echo the probe: got ${echoed}`);
  } catch (error) {
    await close();
    throw error;
  }
  return { client, close };
}

/** A relay host in front of the byte-level echo agent, reached by a WebSocket client with the bench token. */
async function openRelay(relayHost: string, label: string, hostFlags: string[] = []): Promise<OpenPath> {
  const server = await startHost(relayHost, [
    ...hostFlags,
    '--',
    process.execPath,
    fixture('echo-agent.mjs'),
  ]);
  return connect(await openWebSocketEndpoint(server.url, benchToken), [server], label);
}

/** A mirror process in front of a relay host in front of the byte-level echo agent, driven over its stdio. */
async function openChain(relayHost: string, mirrorHost: string, label: string): Promise<OpenPath> {
  const server = await startHost(relayHost, ['--', process.execPath, fixture('echo-agent.mjs')]);
  const mirror = spawnStdioEndpoint(process.execPath, [
    ...profilingFlags(),
    '--import',
    import.meta.resolve('tsx'),
    host(mirrorHost),
    server.url,
  ]);
  return connect(mirror, [server], label);
}

/** Every path, in the order its slices run in each repeat (each reference right before the path it is for). */
export const paths: PathDefinition[] = [
  {
    id: 'stdio-hop',
    label: 'raw stdio hop (Node child, cat-like)',
    hops: [],
    open: () =>
      connect(spawnStdioEndpoint(process.execPath, [fixture('verbatim-echo.mjs')]), [], 'stdio-hop'),
  },
  {
    id: 'ws-hop',
    label: 'raw ws hop (bare ws echo server)',
    hops: [],
    async open() {
      const server = await startHost('raw-ws-echo-host');
      return connect(await openWebSocketEndpoint(server.url), [server], 'ws-hop');
    },
  },
  {
    id: 'minimal-relay',
    label: 'reference relay: WS → minimal relay → stdio byte echo',
    hops: ['ws-hop', 'stdio-hop'],
    open: () => openRelay('minimal-relay-host', 'minimal-relay'),
  },
  {
    id: 'serve-command',
    label: 'serveCommand (`acpremote expose`): WS → relay → stdio byte echo',
    hops: ['ws-hop', 'stdio-hop'],
    reference: 'minimal-relay',
    open: () => openRelay('serve-command-host', 'serve-command'),
  },
  {
    // The same relay with Prometheus metrics on: its same-run ratio to serve-command is what metrics cost.
    id: 'serve-command-metrics',
    label: 'serveCommand with metrics on (`expose --metrics`)',
    hops: ['ws-hop', 'stdio-hop'],
    reference: 'serve-command',
    open: () => openRelay('serve-command-host', 'serve-command-metrics', ['--metrics']),
  },
  {
    id: 'minimal-chain',
    label: 'reference chain: stdio → minimal mirror → WS → minimal relay → stdio byte echo',
    hops: ['stdio-hop', 'ws-hop', 'stdio-hop'],
    open: () => openChain('minimal-relay-host', 'minimal-mirror.ts', 'minimal-chain'),
  },
  {
    id: 'chain',
    label: 'chain (`acpremote mirror` → `expose`): stdio → mirror → WS → relay → stdio byte echo',
    hops: ['stdio-hop', 'ws-hop', 'stdio-hop'],
    reference: 'minimal-chain',
    open: () => openChain('serve-command-host', 'mirror-host.ts', 'chain'),
  },
  {
    id: 'serve-acp',
    label: 'serveAcp (`acpremote serve`): WS → in-process SDK echo agent',
    hops: ['ws-hop'],
    async open() {
      const server = await startHost('serve-acp-host');
      return connect(await openWebSocketEndpoint(server.url, benchToken), [server], 'serve-acp');
    },
  },
];
