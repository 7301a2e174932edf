// The paths the bench measures: two raw hops, the minimal reference relay and chain, and our three relays.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchToken } from './hosts/bench-token.js';
import { hostScript } from './hosts/host-scripts.js';
import { profilingFlags, type RunningHost, startHost } from './hosts/spawn-host.js';
import { childrenOf } from './process-stats.js';
import { RpcClient } from './rpc-client.js';
import {
  type MessageEndpoint,
  openStreamableHttpEndpoint,
  openWebSocketEndpoint,
  spawnStdioEndpoint,
} from './transports.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** The raw hops our paths are built from. */
export type HopId = 'stdio-hop' | 'ws-hop';
export type PathId =
  | HopId
  | 'serve-command'
  | 'serve-command-metrics'
  | 'chain'
  | 'serve-acp'
  | 'minimal-relay'
  | 'minimal-chain'
  | 'sdk-acp-server-http'
  | 'serve-acp-http';

/** What a process of a path does: the bench's driver, a relay host, a mirror, the echo agent, a server or a hop. */
export type ProcessRole = 'driver' | 'relay' | 'mirror' | 'agent' | 'server' | 'echo';

/** A process of an open path, for per-process counters. */
export interface PathProcess {
  role: ProcessRole;
  pid: number;
}

/** How to open a path: `wrap` runs the named processes under another program (valgrind). */
export interface OpenOptions {
  wrap?: Partial<Record<'relay' | 'mirror' | 'server', readonly string[]>>;
}

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
  open(options?: OpenOptions): Promise<OpenPath>;
}

/** An open driver connection to a path plus everything it started. */
export interface OpenPath {
  client: RpcClient;
  /** Every process the path's messages cross, the driver included. */
  processes: PathProcess[];
  close(): Promise<void>;
}

const initializeParams = JSON.stringify({
  protocolVersion: 1,
  clientCapabilities: {},
  clientInfo: { name: 'acpkit-bench', version: '0.0.0' },
});

/**
 * Opens the connection, runs `initialize` (relays and SDK servers need it first) and checks one echo. `processes`
 * is asked after that, once every process of the path runs (a relay spawns its agent for the connection).
 */
async function connect(
  endpoint: MessageEndpoint,
  others: RunningHost[],
  label: string,
  processes: () => PathProcess[],
): Promise<OpenPath> {
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
  return { client, close, processes: [{ role: 'driver', pid: process.pid }, ...processes()] };
}

const agentScript = fixture('echo-agent.mjs');

/** The echo agent a relay host spawned for the connection. */
function agentOf(host: RunningHost): PathProcess[] {
  const hostPid = host.child.pid;
  if (hostPid === undefined) return [];
  return childrenOf(hostPid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(agentScript);
      } catch {
        return false;
      }
    })
    .map((pid) => ({ role: 'agent', pid }));
}

function pidOf(role: ProcessRole, child: { pid?: number | undefined }): PathProcess[] {
  return child.pid === undefined ? [] : [{ role, pid: child.pid }];
}

/**
 * A relay host in front of the byte-level echo agent, reached by a WebSocket client with the bench token; `resume`
 * when the host is ours (it selects resume by default, so the driver offers it, as our clients do).
 */
async function openRelay(
  relayHost: string,
  label: string,
  options: OpenOptions = {},
  hostFlags: readonly string[] = [],
): Promise<OpenPath> {
  const server = await startHost(
    relayHost,
    [...hostFlags, '--', process.execPath, agentScript],
    options.wrap?.relay,
  );
  const resume = relayHost !== 'minimal-relay-host';
  const endpoint = await openWebSocketEndpoint(server.url, benchToken, { resume });
  return connect(endpoint, [server], label, () => [...pidOf('relay', server.child), ...agentOf(server)]);
}

/** A mirror process in front of a relay host in front of the byte-level echo agent, driven over its stdio. */
async function openChain(
  relayHost: string,
  mirrorHost: string,
  label: string,
  options: OpenOptions = {},
): Promise<OpenPath> {
  const server = await startHost(relayHost, ['--', process.execPath, agentScript], options.wrap?.relay);
  const [command, ...wrapperArgs] = [...(options.wrap?.mirror ?? []), process.execPath];
  const mirror = spawnStdioEndpoint(command!, [
    ...wrapperArgs,
    ...profilingFlags(),
    hostScript(mirrorHost),
    server.url,
  ]);
  return connect(mirror, [server], label, () => [
    ...pidOf('mirror', mirror.child),
    ...pidOf('relay', server.child),
    ...agentOf(server),
  ]);
}

/** Every path, in the order its slices run in each repeat (each reference right before the path it is for). */
export const paths: PathDefinition[] = [
  {
    id: 'stdio-hop',
    label: 'raw stdio hop (Node child, cat-like)',
    hops: [],
    open() {
      const echo = spawnStdioEndpoint(process.execPath, [fixture('verbatim-echo.mjs')]);
      return connect(echo, [], 'stdio-hop', () => pidOf('echo', echo.child));
    },
  },
  {
    id: 'ws-hop',
    label: 'raw ws hop (bare ws echo server)',
    hops: [],
    async open(options = {}) {
      const server = await startHost('raw-ws-echo-host', [], options.wrap?.server);
      return connect(await openWebSocketEndpoint(server.url), [server], 'ws-hop', () =>
        pidOf('server', server.child),
      );
    },
  },
  {
    id: 'minimal-relay',
    label: 'reference relay: WS → minimal relay → stdio byte echo',
    hops: ['ws-hop', 'stdio-hop'],
    open: (options) => openRelay('minimal-relay-host', 'minimal-relay', options),
  },
  {
    id: 'serve-command',
    label: 'serveCommand (`acpremote expose`): WS → relay → stdio byte echo',
    hops: ['ws-hop', 'stdio-hop'],
    reference: 'minimal-relay',
    open: (options) => openRelay('serve-command-host', 'serve-command', options),
  },
  {
    // The same relay with Prometheus metrics on: its same-run ratio to serve-command is what metrics cost.
    id: 'serve-command-metrics',
    label: 'serveCommand with metrics on (`expose --metrics`)',
    hops: ['ws-hop', 'stdio-hop'],
    reference: 'serve-command',
    open: (options) => openRelay('serve-command-host', 'serve-command-metrics', options, ['--metrics']),
  },
  {
    id: 'minimal-chain',
    label: 'reference chain: stdio → minimal mirror → WS → minimal relay → stdio byte echo',
    hops: ['stdio-hop', 'ws-hop', 'stdio-hop'],
    open: (options) => openChain('minimal-relay-host', 'minimal-mirror.ts', 'minimal-chain', options),
  },
  {
    id: 'chain',
    label: 'chain (`acpremote mirror` → `expose`): stdio → mirror → WS → relay → stdio byte echo',
    hops: ['stdio-hop', 'ws-hop', 'stdio-hop'],
    reference: 'minimal-chain',
    open: (options) => openChain('serve-command-host', 'mirror-host.ts', 'chain', options),
  },
  {
    id: 'serve-acp',
    label: 'serveAcp (`acpremote serve`): WS → in-process SDK echo agent',
    hops: ['ws-hop'],
    async open(options = {}) {
      const server = await startHost('serve-acp-host', [], options.wrap?.server);
      const endpoint = await openWebSocketEndpoint(server.url, benchToken, { resume: true });
      return connect(endpoint, [server], 'serve-acp', () => pidOf('server', server.child));
    },
  },
  {
    // The TypeScript SDK's own Streamable HTTP server with the same in-process echo agent: the reference of ours.
    id: 'sdk-acp-server-http',
    label: 'SDK AcpServer (`/experimental/node`): Streamable HTTP → in-process SDK echo agent',
    hops: [],
    async open(options = {}) {
      const server = await startHost('sdk-acp-server-host', [], options.wrap?.server);
      return connect(
        await openStreamableHttpEndpoint(server.url, benchToken),
        [server],
        'sdk-acp-server-http',
        () => pidOf('server', server.child),
      );
    },
  },
  {
    id: 'serve-acp-http',
    label: 'serveAcp (`acpremote serve`): Streamable HTTP → in-process SDK echo agent',
    hops: [],
    reference: 'sdk-acp-server-http',
    async open(options = {}) {
      const server = await startHost('serve-acp-host', ['--http'], options.wrap?.server);
      return connect(
        await openStreamableHttpEndpoint(server.url, benchToken),
        [server],
        'serve-acp-http',
        () => pidOf('server', server.child),
      );
    },
  },
];

/**
 * The paths measured together, one group at a time: only the processes of the group under test are alive, and each
 * of our relays is measured beside its own reference and nothing else (see the README: which other processes are
 * alive changed the ratios). A path may be in several groups: each group opens its own instance of it, and a path's
 * figures and its ratios to its reference come from its first group (the first one naming it), whose rounds measured
 * both. So `serve-command` is the path measured against `minimal-relay`, and again, as the reference, beside
 * `serve-command-metrics`. `serve-acp` goes with the raw `ws` hop it is compared with.
 */
export const pathGroups: PathId[][] = [
  ['minimal-relay', 'serve-command'],
  ['minimal-chain', 'chain'],
  ['serve-command', 'serve-command-metrics'],
  ['stdio-hop', 'ws-hop', 'serve-acp'],
  ['sdk-acp-server-http', 'serve-acp-http'],
];
