// Our Streamable HTTP client probes the endpoint before it sends `initialize` (a GET without a connection, which
// every ACP endpoint answers 400): the server must answer it without logging or counting it as a refusal.
import { afterEach, describe, expect, it } from 'vitest';
import { connectAcp } from '../src/index.js';
import { Cleanup, rawRequest, recordingLogger, startEchoServer } from './support/helpers.js';
import { parseMetrics, sampleValue } from './support/prometheus.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("the client's probe of a Streamable HTTP endpoint", () => {
  it('is answered 400 but neither logged nor counted as a refusal', async () => {
    const { logger, entries } = recordingLogger();
    const server = await startEchoServer(cleanup, { logger, metrics: true });
    const remote = await connectAcp(server.endpoint, { logger: recordingLogger().logger });
    cleanup.add(() => remote.close());
    // One exchange on the opened connection, so the probe is long answered.
    const writer = remote.stream.writable.getWriter();
    const reader = remote.stream.readable.getReader();
    await writer.write({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } });
    expect((await reader.read()).value).toMatchObject({ jsonrpc: '2.0', id: 1 });
    reader.releaseLock();
    writer.releaseLock();
    await remote.close();

    expect(entries.filter((entry) => /refused/.test(entry.message))).toEqual([]);
    const metrics = parseMetrics((await rawRequest(server.port, '/metrics', {})).body);
    expect(sampleValue(metrics, 'acpremote_http_requests_refused_total', { reason: 'invalid' }) ?? 0).toBe(0);
  });

  it('still refuses (and logs) a GET with an unknown connection', async () => {
    const { logger, waitFor } = recordingLogger();
    const server = await startEchoServer(cleanup, { logger });
    const response = await rawRequest(server.port, '/acp', {
      Accept: 'text/event-stream',
      'Acp-Connection-Id': 'never-opened',
    });
    expect(response.status).toBe(404);
    expect((await waitFor(/request refused/)).fields).toMatchObject({ reason: 'connection' });
  });
});
