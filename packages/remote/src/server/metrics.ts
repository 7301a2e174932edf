// The servers' Prometheus metrics (ServeOptions.metrics). Two kinds of counting:
// - per message (the relay's hot path): plain number fields of a MessageCounter, added to by the WebSocket port and
//   read by prom-client only when /metrics is scraped (collect callbacks), so a message costs a few integer adds and
//   never a prom-client call; with metrics off the ports hold DISCARDED_MESSAGES, whose count() does nothing;
// - per event (a connection, a refusal, a child exit): prom-client counters, incremented where the event happens
//   through the named methods of ServerMetrics; with metrics off NO_METRICS, whose methods do nothing.
// prom-client is loaded only when a server turns metrics on, and every server gets its own Registry (never the
// library's global one), so two servers in one process never share or collide.
import type { Counter, Gauge, Metric, Registry } from 'prom-client';
import {
  CountingMessageCounter,
  type FrameRefusalReason,
  type LimitName,
  MESSAGE_SIZE_BUCKETS,
  type RelayMetrics,
} from '../relay/relay-metrics.js';
import { type RefusalReason, refusalReasons } from '../seams/refusal-reasons.js';
import type { DurableResumeOutcome, ServerMetrics } from '../seams/server-metrics.js';
import { DurableRefusalReason } from '../shared/durable-resume.js';
import { TRANSPORTS, type Transport, type TransportLabel, transportLabel } from '../shared/transport.js';
import type { ResumeRefusalReason } from '../websocket/resume/resume-protocol.js';
import type { ResumeCounters } from '../websocket/resume/resume-registry.js';

const DURABLE_RESUME_OUTCOMES: readonly DurableResumeOutcome[] = [
  'accepted',
  ...Object.values(DurableRefusalReason),
];

/** What the server tells the metrics at scrape time. */
export interface ServerState {
  /** Open connections of a transport (sessions whose teardown has not finished). */
  readonly openConnections: (transport: Transport) => number;
  /** Whether the server is draining or closing. */
  readonly draining: () => boolean;
  /** Sessions whose client dropped and that wait for a resume (included in `openConnections`). */
  readonly detachedSessions: () => number;
  /** The resume registry's counters; undefined when the server offers no resume (the resume series stay 0). */
  readonly resumeCounters: Readonly<ResumeCounters> | undefined;
  /** Bytes the server holds for its clients now, summed over connections, by buffer. */
  readonly bufferedBytes: () => Readonly<Record<BufferName, number>>;
  /** Requests from clients that wait for the agent's answer now, summed over connections (`serveAcp`). */
  readonly pendingRequests: () => number;
  /** Streamable HTTP event streams (SSE responses) whose socket is open now, ending ones included. */
  readonly eventStreams?: () => number;
}

/**
 * The buffers a server holds for its clients, as a metric label: `send_queue` (WebSocket send buffers, bounded by
 * the high-water mark), `replay` (resume replay buffers, bounded by `resumeBufferBytes` plus one message).
 */
export type BufferName = 'send_queue' | 'replay';
const BUFFERS: readonly BufferName[] = ['send_queue', 'replay'];
const LIMITS: readonly LimitName[] = [
  'replay_buffer',
  'reply_debt',
  'pending_requests',
  'detached_sessions',
  'event_streams',
  'http_bodies',
  'pending_routes',
];

/** A server's metrics with their registry: `render()` is the `/metrics` body. */
export interface MetricsEndpoint {
  readonly metrics: ServerMetrics;
  readonly contentType: string;
  render(): Promise<string>;
}

/** Outcomes every `acpremote_connections_total` series starts at 0 with, so rates work from the first scrape. */
const CONNECTION_OUTCOMES = ['accepted', ...refusalReasons('webSocket')] as const;
/** Outcomes of a resume request: accepted, or the reason it was refused (`Acpkit-Resume-Refused`). */
const RESUME_OUTCOMES: readonly ('accepted' | ResumeRefusalReason)[] = [
  'accepted',
  'unknown',
  'expired',
  'ended',
  'overflow',
  'invalid',
];
/** The refusals each sender can cause (an agent writes lines: never a binary frame). */
const FRAME_REASONS: Readonly<Record<string, readonly FrameRefusalReason[]>> = {
  client: ['binary', 'oversize', 'invalid_utf8', 'not_json_rpc', 'protocol_error'],
  agent: ['oversize', 'invalid_utf8', 'not_json_rpc'],
};
/** Outcomes a Streamable HTTP `initialize` can have (its other refusals are plain request refusals). */
const HTTP_CONNECTION_OUTCOMES = ['accepted', ...refusalReasons('streamableHttp')] as const;
const HTTP_REFUSALS: readonly RefusalReason[] = refusalReasons('request');
const DIRECTIONS = ['received', 'sent'] as const;
const TRANSPORT_LABELS: readonly TransportLabel[] = TRANSPORTS.map(transportLabel);
/** The message counters of each transport and direction. */
type Traffic = Record<TransportLabel, Record<(typeof DIRECTIONS)[number], CountingMessageCounter>>;

/**
 * Creates the metrics of one server in a private prom-client registry (prom-client is loaded here, on first use).
 *
 * @example
 * ```ts
 * const endpoint = await createMetricsEndpoint({ openConnections: () => sessions.size, draining: () => false });
 * response.end(await endpoint.render());
 * ```
 */
export async function createMetricsEndpoint(state: ServerState): Promise<MetricsEndpoint> {
  const promClient = await import('prom-client');
  const registry = new promClient.Registry();
  const registers = [registry];
  const counter = <Label extends string = never>(
    name: string,
    help: string,
    labelNames: readonly Label[] = [],
  ) => new promClient.Counter<Label>({ name, help, labelNames, registers });
  const traffic: Traffic = {
    websocket: { received: new CountingMessageCounter(), sent: new CountingMessageCounter() },
    streamable_http: { received: new CountingMessageCounter(), sent: new CountingMessageCounter() },
  };

  new promClient.Gauge({
    name: 'acpremote_connections_open',
    help: 'Open connections by transport (websocket, streamable_http).',
    labelNames: ['transport'],
    registers,
    collect(this: Gauge<'transport'>) {
      for (const transport of TRANSPORTS)
        this.set({ transport: transportLabel(transport) }, state.openConnections(transport));
    },
  });
  new promClient.Gauge({
    name: 'acpremote_draining',
    help: '1 while the server drains or closes (new connections refused, /readyz 503), else 0.',
    registers,
    collect(this: Gauge) {
      this.set(state.draining() ? 1 : 0);
    },
  });
  new promClient.Gauge({
    name: 'acpremote_sessions_detached',
    help: 'Sessions whose client dropped and that wait for a resume (counted in acpremote_connections_open).',
    registers,
    collect(this: Gauge) {
      this.set(state.detachedSessions());
    },
  });
  readResumeCounters(promClient.Counter, registers, state.resumeCounters);
  new promClient.Gauge({
    name: 'acpremote_buffered_bytes',
    help: 'Bytes held for clients now, by buffer: send_queue (WebSocket send buffers), replay (resume replay buffers).',
    labelNames: ['buffer'],
    registers,
    collect(this: Gauge) {
      const bytes = state.bufferedBytes();
      for (const buffer of BUFFERS) this.set({ buffer }, bytes[buffer]);
    },
  });
  new promClient.Gauge({
    name: 'acpremote_event_streams_open',
    help: 'Streamable HTTP event streams (SSE responses) whose socket is open now, ending ones included (bounded by maxEventStreams).',
    registers,
    collect(this: Gauge) {
      this.set(state.eventStreams?.() ?? 0);
    },
  });
  new promClient.Gauge({
    name: 'acpremote_pending_requests',
    help: "Requests from clients waiting for the agent's answer (serveAcp), summed over connections.",
    registers,
    collect(this: Gauge) {
      this.set(state.pendingRequests());
    },
  });
  const limitsReached = counter(
    'acpremote_limits_reached_total',
    'Times a peer ran into a bound, by limit: replay_buffer, reply_debt, pending_requests, detached_sessions, event_streams (a GET past maxEventStreams), http_bodies (a slow request body cut to make room), pending_routes (a Streamable HTTP answer routed to the connection stream past the route table).',
    ['limit'],
  );
  const connections = counter(
    'acpremote_connections_total',
    'New connections (WebSocket upgrades, Streamable HTTP initialize) by transport and outcome: accepted, or the reason they were refused.',
    ['outcome', 'transport'],
  );
  const refusedRequests = counter(
    'acpremote_http_requests_refused_total',
    'Plain HTTP requests refused, and HTTP connections closed at the connection cap (limit), by reason.',
    ['reason'],
  );
  readAtScrape(
    promClient.Counter,
    registers,
    'acpremote_messages_total',
    'Messages by direction and transport.',
    (counter) => {
      for (const transport of TRANSPORT_LABELS)
        for (const direction of DIRECTIONS)
          counter.inc({ direction, transport }, traffic[transport][direction].messages);
    },
  );
  readAtScrape(
    promClient.Counter,
    registers,
    'acpremote_message_bytes_total',
    'Bytes of messages by direction and transport.',
    (counter) => {
      for (const transport of TRANSPORT_LABELS)
        for (const direction of DIRECTIONS)
          counter.inc({ direction, transport }, traffic[transport][direction].bytes);
    },
  );
  registry.registerMetric(messageSizeHistogram(traffic) as unknown as Metric);
  const framesRefused = counter(
    'acpremote_frames_refused_total',
    'Frames refused, by sender (client, agent) and reason.',
    ['sender', 'reason'],
  );
  const childrenStarted = counter(
    'acpremote_child_processes_started_total',
    'Agent processes started (serveCommand: one per connection).',
  );
  const childExits = counter(
    'acpremote_child_process_exits_total',
    'Agent processes ended, by exit code or by the signal that killed them (the other label is "").',
    ['code', 'signal'],
  );
  const childStartFailures = counter(
    'acpremote_child_process_start_failures_total',
    'Agent processes that could not be started (ENOENT, EACCES, EMFILE, ...).',
  );
  const stallCloses = counter(
    'acpremote_send_stall_closes_total',
    'Connections closed because they made no progress for the stall timeout (the client read or acknowledged nothing).',
  );
  const heartbeatTimeouts = counter(
    'acpremote_heartbeat_timeouts_total',
    'Connections terminated because the client answered no ping.',
  );
  const durableResumes = counter(
    'acpremote_durable_resumes_total',
    'Resumes of the durable-resume draft (Last-Event-ID on Streamable HTTP, stream/resume on the RFD WebSocket), by transport and outcome: accepted, or the reason they were refused (unknown, expired, ended, unsupported, invalid).',
    ['transport', 'outcome'],
  );

  for (const outcome of CONNECTION_OUTCOMES) connections.inc({ outcome, transport: 'websocket' }, 0);
  for (const outcome of HTTP_CONNECTION_OUTCOMES)
    connections.inc({ outcome, transport: transportLabel('streamable-http') }, 0);
  for (const reason of HTTP_REFUSALS) refusedRequests.inc({ reason }, 0);
  for (const [sender, reasons] of Object.entries(FRAME_REASONS)) {
    for (const reason of reasons) framesRefused.inc({ sender, reason }, 0);
  }
  for (const limit of LIMITS) limitsReached.inc({ limit }, 0);
  childrenStarted.inc(0);
  // Exit codes and signals are open-ended: the clean exit is the series present from the start.
  childExits.inc({ code: '0', signal: '' }, 0);
  childStartFailures.inc(0);
  stallCloses.inc(0);
  heartbeatTimeouts.inc(0);
  for (const transport of TRANSPORT_LABELS)
    for (const outcome of DURABLE_RESUME_OUTCOMES) durableResumes.inc({ transport, outcome }, 0);

  // What every port counts the same way whatever its transport; only the message counters are per transport.
  const shared = {
    frameRefused: (sender: string, reason: FrameRefusalReason) => framesRefused.inc({ sender, reason }),
    limitReached: (limit: LimitName) => limitsReached.inc({ limit }),
    sendStallClosed: () => stallCloses.inc(),
  };
  const streamableHttp: RelayMetrics = { ...traffic.streamable_http, ...shared };
  const metrics: ServerMetrics = {
    ...traffic.websocket,
    ...shared,
    forTransport: (transport) => (transport === 'websocket' ? metrics : streamableHttp),
    connectionAccepted: (transport = 'websocket') =>
      connections.inc({ outcome: 'accepted', transport: transportLabel(transport) }),
    connectionRefused: (reason, transport = 'websocket') =>
      connections.inc({ outcome: reason, transport: transportLabel(transport) }),
    requestRefused: (reason) => refusedRequests.inc({ reason }),
    childStarted: () => childrenStarted.inc(),
    childExited: ({ code, signal, error }) => {
      if (error) childStartFailures.inc();
      else childExits.inc({ code: code === null ? '' : String(code), signal: signal ?? '' });
    },
    heartbeatTimedOut: () => heartbeatTimeouts.inc(),
    durableResume: (transport, outcome) =>
      durableResumes.inc({ transport: transportLabel(transport), outcome }),
  };
  return { metrics, contentType: registry.contentType, render: () => registry.metrics() };
}

/**
 * The resume series, copied from the registry's plain counters when scraped (the registry counts without knowing
 * about Prometheus; with resume off every series stays 0).
 */
function readResumeCounters(
  CounterClass: typeof Counter,
  registers: Registry[],
  counters: Readonly<ResumeCounters> | undefined,
): void {
  const plain = (name: string, help: string, read: (counters: Readonly<ResumeCounters>) => number) =>
    new CounterClass({
      name,
      help,
      registers,
      collect(this: Counter) {
        this.reset();
        this.inc(counters === undefined ? 0 : read(counters));
      },
    });
  plain(
    'acpremote_resumable_sessions_total',
    'Connections that negotiated resume (acpkit.resume.v1).',
    (counters) => counters.sessions,
  );
  plain(
    'acpremote_session_drops_total',
    'Unclean drops that detached a resumable session (it waited for its client).',
    (counters) => counters.detached,
  );
  plain(
    'acpremote_resume_windows_expired_total',
    'Detached sessions ended because their client did not come back within the resume window.',
    (counters) => counters.expired,
  );
  new CounterClass({
    name: 'acpremote_resumes_total',
    help: 'Resume requests by outcome: accepted, or the reason they were refused (unknown, expired, ended, overflow, invalid).',
    labelNames: ['outcome'],
    registers,
    collect(this: Counter<'outcome'>) {
      this.reset();
      for (const outcome of RESUME_OUTCOMES) {
        const value =
          counters === undefined ? 0 : outcome === 'accepted' ? counters.accepted : counters.refused[outcome];
        this.inc({ outcome }, value);
      }
    },
  });
}

/** A counter by direction whose values are copied from the plain message counters when scraped. */
function readAtScrape(
  CounterClass: typeof Counter,
  registers: Registry[],
  name: string,
  help: string,
  read: (counter: Counter<'direction' | 'transport'>) => void,
): void {
  new CounterClass({
    name,
    help,
    labelNames: ['direction', 'transport'],
    registers,
    collect(this: Counter<'direction' | 'transport'>) {
      this.reset();
      read(this);
    },
  });
}

/**
 * `acpremote_message_size_bytes` in prom-client's metric shape, built at scrape time from the hand-kept slots:
 * prom-client's Histogram can only be fed one `observe()` per message (label hashing and validation each time),
 * which the relay's hot path cannot afford; the registry formats this object like any histogram.
 */
function messageSizeHistogram(traffic: Traffic) {
  const name = 'acpremote_message_size_bytes';
  const get = async () => ({
    name,
    help: 'Sizes of messages by direction and transport (bytes).',
    type: 'histogram',
    aggregator: 'sum',
    values: TRANSPORT_LABELS.flatMap((transport) =>
      DIRECTIONS.flatMap((direction) => {
        const counter = traffic[transport][direction];
        let cumulative = 0;
        const buckets = MESSAGE_SIZE_BUCKETS.map((bound, slot) => {
          cumulative += counter.sizes[slot]!;
          return {
            metricName: `${name}_bucket`,
            labels: { direction, transport, le: bound },
            value: cumulative,
          };
        });
        return [
          ...buckets,
          {
            metricName: `${name}_bucket`,
            labels: { direction, transport, le: '+Inf' },
            value: counter.messages,
          },
          { metricName: `${name}_sum`, labels: { direction, transport }, value: counter.bytes },
          { metricName: `${name}_count`, labels: { direction, transport }, value: counter.messages },
        ];
      }),
    ),
  });
  return { name, help: '', type: 'histogram', aggregator: 'sum', get, reset() {} };
}
