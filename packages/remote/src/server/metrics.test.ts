// Unit tests of the server metrics: the no-op object and the Prometheus endpoint.
import { register as globalRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseMetrics, sampleValue } from '../../test/support/prometheus.js';
import { DISCARDED_MESSAGES } from '../relay/relay-metrics.js';
import { NO_METRICS } from '../seams/server-metrics.js';
import { createMetricsEndpoint, type ServerState } from './metrics.js';

/** What an idle server tells its metrics, with `overrides`. */
function serverState(overrides: Partial<ServerState> = {}): ServerState {
  return {
    openConnections: () => 0,
    draining: () => false,
    detachedSessions: () => 0,
    resumeCounters: undefined,
    bufferedBytes: () => ({ send_queue: 0, replay: 0 }),
    pendingRequests: () => 0,
    ...overrides,
  };
}

describe('NO_METRICS', () => {
  it('accepts every event and keeps nothing (the null object of a server without metrics)', () => {
    expect(NO_METRICS.received).toBe(DISCARDED_MESSAGES);
    expect(() => {
      NO_METRICS.received.count('x');
      NO_METRICS.frameRefused('client', 'binary');
      NO_METRICS.connectionRefused('auth');
      NO_METRICS.childExited({ code: 1, signal: null });
    }).not.toThrow();
    expect(Object.isFrozen(NO_METRICS)).toBe(true);
  });
});

describe('createMetricsEndpoint', () => {
  it('renders every event in valid Prometheus text, hot counters read at scrape time', async () => {
    let open = 2;
    const endpoint = await createMetricsEndpoint(
      serverState({
        openConnections: () => open,
        draining: () => true,
        bufferedBytes: () => ({ send_queue: 1_024, replay: 65_536 }),
        pendingRequests: () => 3,
      }),
    );
    const { metrics } = endpoint;
    metrics.limitReached('pending_requests');
    metrics.limitReached('pending_requests');
    metrics.limitReached('detached_sessions');
    metrics.connectionAccepted();
    metrics.connectionAccepted();
    metrics.connectionRefused('draining');
    metrics.requestRefused('auth');
    metrics.received.count(Buffer.alloc(300));
    metrics.sent.count('{"jsonrpc":"2.0"}');
    metrics.sent.count(Buffer.alloc(2_000_000));
    metrics.frameRefused('client', 'binary');
    metrics.frameRefused('agent', 'not_json_rpc');
    metrics.childStarted();
    metrics.childExited({ code: 0, signal: null });
    metrics.childExited({ code: null, signal: 'SIGKILL' });
    metrics.childExited({ code: null, signal: null, error: new Error('ENOENT') });
    metrics.sendStallClosed();
    metrics.heartbeatTimedOut();
    metrics.durableResume('streamable-http', 'accepted');
    metrics.durableResume('streamable-http', 'expired');
    metrics.durableResume('websocket', 'unknown');
    open = 5;

    expect(endpoint.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parseMetrics(await endpoint.render());
    expect(sampleValue(families, 'acpremote_connections_open')).toBe(5);
    expect(sampleValue(families, 'acpremote_draining')).toBe(1);
    expect(sampleValue(families, 'acpremote_connections_total', { outcome: 'accepted' })).toBe(2);
    expect(sampleValue(families, 'acpremote_connections_total', { outcome: 'draining' })).toBe(1);
    expect(sampleValue(families, 'acpremote_connections_total', { outcome: 'auth' })).toBe(0);
    expect(sampleValue(families, 'acpremote_http_requests_refused_total', { reason: 'auth' })).toBe(1);
    expect(sampleValue(families, 'acpremote_messages_total', { direction: 'received' })).toBe(1);
    expect(sampleValue(families, 'acpremote_messages_total', { direction: 'sent' })).toBe(2);
    expect(sampleValue(families, 'acpremote_message_bytes_total', { direction: 'sent' })).toBe(2_000_017);
    const sizes = (le: string) =>
      sampleValue(families, 'acpremote_message_size_bytes', { direction: 'sent', le });
    expect([sizes('64'), sizes('1048576'), sizes('4194304'), sizes('+Inf')]).toEqual([1, 1, 2, 2]);
    expect(
      sampleValue(families, 'acpremote_message_size_bytes', { direction: 'received', sample: 'sum' }),
    ).toBe(300);
    expect(
      sampleValue(families, 'acpremote_frames_refused_total', { sender: 'client', reason: 'binary' }),
    ).toBe(1);
    expect(
      sampleValue(families, 'acpremote_frames_refused_total', { sender: 'agent', reason: 'not_json_rpc' }),
    ).toBe(1);
    expect(sampleValue(families, 'acpremote_child_processes_started_total')).toBe(1);
    expect(sampleValue(families, 'acpremote_child_process_exits_total', { code: '0' })).toBe(1);
    expect(sampleValue(families, 'acpremote_child_process_exits_total', { signal: 'SIGKILL' })).toBe(1);
    expect(sampleValue(families, 'acpremote_child_process_start_failures_total')).toBe(1);
    expect(sampleValue(families, 'acpremote_send_stall_closes_total')).toBe(1);
    expect(sampleValue(families, 'acpremote_heartbeat_timeouts_total')).toBe(1);
    const durable = (transport: string, outcome: string) =>
      sampleValue(families, 'acpremote_durable_resumes_total', { transport, outcome });
    expect([
      durable('streamable_http', 'accepted'),
      durable('streamable_http', 'expired'),
      durable('websocket', 'unknown'),
      durable('websocket', 'accepted'),
    ]).toEqual([1, 1, 1, 0]);
    expect(sampleValue(families, 'acpremote_buffered_bytes', { buffer: 'send_queue' })).toBe(1_024);
    expect(sampleValue(families, 'acpremote_buffered_bytes', { buffer: 'replay' })).toBe(65_536);
    expect(sampleValue(families, 'acpremote_pending_requests')).toBe(3);
    const limit = (name: string) => sampleValue(families, 'acpremote_limits_reached_total', { limit: name });
    expect([
      limit('pending_requests'),
      limit('detached_sessions'),
      limit('replay_buffer'),
      limit('reply_debt'),
    ]).toEqual([2, 1, 0, 0]);
    expect(families.get('acpremote_message_size_bytes')?.type).toBe('histogram');
    for (const name of families.keys()) expect(name).toMatch(/^acpremote_/);
  });

  it('serves every outcome, reason and the clean exit at 0 before anything happened', async () => {
    const endpoint = await createMetricsEndpoint(serverState());
    const families = parseMetrics(await endpoint.render());
    for (const outcome of ['accepted', 'malformed', 'shutdown', 'resume']) {
      expect(sampleValue(families, 'acpremote_connections_total', { outcome }), outcome).toBe(0);
    }
    expect(sampleValue(families, 'acpremote_child_process_exits_total', { code: '0', signal: '' })).toBe(0);
    for (const transport of ['websocket', 'streamable_http'])
      for (const outcome of ['accepted', 'unknown', 'expired', 'ended', 'unsupported', 'invalid'])
        expect(
          sampleValue(families, 'acpremote_durable_resumes_total', { transport, outcome }),
          `${transport} ${outcome}`,
        ).toBe(0);
  });

  it('gives each server its own registry and never touches prom-client’s global one', async () => {
    const first = await createMetricsEndpoint(serverState({ openConnections: () => 1 }));
    const second = await createMetricsEndpoint(serverState({ openConnections: () => 7 }));
    first.metrics.received.count('abc');
    expect(
      sampleValue(parseMetrics(await first.render()), 'acpremote_messages_total', { direction: 'received' }),
    ).toBe(1);
    const other = parseMetrics(await second.render());
    expect(sampleValue(other, 'acpremote_messages_total', { direction: 'received' })).toBe(0);
    expect(sampleValue(other, 'acpremote_connections_open')).toBe(7);
    expect(
      globalRegistry.getMetricsAsArray().filter((metric) => metric.name.startsWith('acpremote_')),
    ).toEqual([]);
  });
});
