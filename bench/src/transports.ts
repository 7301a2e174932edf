// Driver-side endpoints: the bench talks to every path through the same tiny interface so the driver's own
// cost is identical across baselines and our paths. Hand-written on purpose: the SDK's streams add web-stream
// and validation overhead that would hide the relay's cost behind the driver's.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { spawnProcessGroup } from '@acpkit/remote';
import WebSocket from 'ws';

/** A bidirectional message pipe: one JSON-RPC message per `send`, one per receiver call. */
export interface MessageEndpoint {
  send(text: string): void;
  setReceiver(receiver: (text: string) => void): void;
  /** Resolves when the peer goes away, with a reason for error messages. */
  readonly ended: Promise<string>;
  close(): Promise<void>;
}

const newline = 0x0a;

/**
 * Splits a byte stream into lines, scanning only each new chunk (linear in the input, even for one 16 MiB line).
 *
 * @example
 * ```ts
 * const splitter = new LineSplitter((line) => console.log(line));
 * splitter.push(Buffer.from('a\nb'));
 * ```
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    let index = chunk.indexOf(newline, start);
    while (index !== -1) {
      const tail = chunk.subarray(start, index);
      const line =
        this.pending.length === 0
          ? tail.toString('utf8')
          : Buffer.concat([...this.pending, tail]).toString('utf8');
      this.pending = [];
      if (line.length > 0) this.onLine(line);
      start = index + 1;
      index = chunk.indexOf(newline, start);
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }
}

/**
 * Spawns a child that speaks NDJSON on stdin/stdout (stderr is inherited so its diagnostics stay visible).
 *
 * @example
 * ```ts
 * const endpoint = spawnStdioEndpoint(process.execPath, ['fixtures/echo-agent.mjs']);
 * ```
 */
export function spawnStdioEndpoint(
  command: string,
  args: readonly string[],
): MessageEndpoint & { child: ChildProcess } {
  const group = spawnProcessGroup([command, ...args], { terminateTimeoutMs: 3_000 });
  const child = group.process;
  if (!child.stdin || !child.stdout) throw new Error(`could not spawn ${command}`);
  const { stdin, stdout } = child;
  let receiver: (text: string) => void = () => {};
  const splitter = new LineSplitter((line) => receiver(line));
  stdout.on('data', (chunk: Buffer) => splitter.push(chunk));
  const ended = group.exited.then(({ code, signal, error }) =>
    error ? `child failed to start: ${error.message}` : `child exited with ${code ?? signal}`,
  );
  return {
    child,
    send(text) {
      stdin.write(`${text}\n`);
    },
    setReceiver(next) {
      receiver = next;
    },
    ended,
    async close() {
      // @acpkit/remote's teardown: stdin EOF, then SIGTERM, then SIGKILL, to the child's whole process group.
      await group.terminate();
    },
  };
}

/** Largest frame the driver accepts: above every payload the bench sends. */
export const DRIVER_MAX_PAYLOAD = 64 * 1024 * 1024;

/** The resume wire's subprotocol (docs/remote-transport.md, "Resume"), which our servers select by default. */
const RESUME_SUBPROTOCOL = 'acpkit.resume.v1';
/** A client acknowledges after this many data frames, or bytes of them, or this long after the first (docs: Resume). */
const ACK_EVERY_FRAMES = 64;
const ACK_EVERY_BYTES = 1024 * 1024;
const ACK_DELAY_MS = 100;

/**
 * The driver's half of the resume wire, which our servers select by default: it acknowledges the data frames it
 * received (every 64, every 1 MiB, or 100 ms after the first unacknowledged one) so the server's replay buffer
 * empties as it would with our own clients. It keeps no replay itself: the bench never drops a connection.
 */
function acknowledgeResume(socket: WebSocket): (bytes: number) => void {
  let received = 0;
  let frames = 0;
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const acknowledge = () => {
    clearTimeout(timer);
    timer = undefined;
    frames = 0;
    bytes = 0;
    if (socket.readyState === WebSocket.OPEN)
      socket.send(Buffer.from(`{"type":"ack","received":${received}}`), { binary: true });
  };
  return (size) => {
    received += 1;
    frames += 1;
    bytes += size;
    if (frames >= ACK_EVERY_FRAMES || bytes >= ACK_EVERY_BYTES) acknowledge();
    else timer ??= setTimeout(acknowledge, ACK_DELAY_MS);
  };
}

/**
 * Opens a `ws` client and resolves once it is open. `resume` offers the resume subprotocol (what our clients do by
 * default, so our servers run with resume on, as users get them) and acknowledges what arrives.
 *
 * @example
 * ```ts
 * const endpoint = await openWebSocketEndpoint('ws://127.0.0.1:8080/acp/ws', token, { resume: true });
 * ```
 */
export async function openWebSocketEndpoint(
  url: string,
  token?: string,
  options: { resume?: boolean } = {},
): Promise<MessageEndpoint & { socket: WebSocket }> {
  const socket = new WebSocket(url, options.resume ? [RESUME_SUBPROTOCOL] : [], {
    maxPayload: DRIVER_MAX_PAYLOAD,
    perMessageDeflate: false,
    ...(token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } }),
  });
  let receiver: (text: string) => void = () => {};
  const received = options.resume ? acknowledgeResume(socket) : undefined;
  socket.on('message', (data: Buffer, binary: boolean) => {
    // Binary frames are the resume wire's control frames (its welcome, the server's acknowledgements).
    if (binary) return;
    received?.(data.length);
    receiver(data.toString('utf8'));
  });
  const ended = new Promise<string>((resolve) => {
    socket.on('close', (code, reason) => resolve(`socket closed with ${code} ${reason.toString()}`));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  if (options.resume && socket.protocol !== RESUME_SUBPROTOCOL)
    throw new Error(`${url} did not select ${RESUME_SUBPROTOCOL}: is resume off on the server?`);
  socket.on('error', () => {});
  return {
    socket,
    send(text) {
      socket.send(text);
    },
    setReceiver(next) {
      receiver = next;
    },
    ended,
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = once(socket, 'close');
      socket.close(1000, 'bench done');
      const timer = setTimeout(() => socket.terminate(), 3_000);
      await closed;
      clearTimeout(timer);
    },
  };
}

/**
 * Opens an ACP Streamable HTTP connection (the RFD transport) the same way for every server: `initialize` POSTed
 * first (its answer is the POST's body, and its `Acp-Connection-Id` names the connection), then one SSE GET for the
 * connection stream, where every later answer arrives (the bench's echo requests carry no session). Later messages
 * are POSTed on a keep-alive agent without waiting for each other (the bench's pipelining), their 202s discarded.
 * Events are read line by line: both servers write each message on one `data:` line.
 *
 * @example
 * ```ts
 * const endpoint = await openStreamableHttpEndpoint('http://127.0.0.1:8080/acp', token);
 * ```
 */
export async function openStreamableHttpEndpoint(url: string, token?: string): Promise<MessageEndpoint> {
  const { Agent, request } = await import('node:http');
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const auth: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  let receiver: (text: string) => void = () => {};
  let connectionId: string | undefined;
  /** Session streams opened (every bench request names one session in its params). */
  const sessions = new Map<string, Promise<void>>();
  let endedWith: (reason: string) => void = () => {};
  const ended = new Promise<string>((resolve) => {
    endedWith = resolve;
  });
  const post = (
    body: string,
    headers: Record<string, string>,
    onResponse: (status: number, id: string | undefined, text: string) => void,
  ) => {
    const outgoing = request(url, {
      method: 'POST',
      agent,
      headers: {
        ...auth,
        ...headers,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        ...(connectionId === undefined ? {} : { 'Acp-Connection-Id': connectionId }),
      },
    });
    outgoing.setNoDelay(true);
    outgoing.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => {
        const header = response.headers['acp-connection-id'];
        onResponse(
          response.statusCode ?? 0,
          typeof header === 'string' ? header : undefined,
          Buffer.concat(chunks).toString('utf8'),
        );
      });
    });
    outgoing.once('error', (error) => endedWith(`POST failed: ${error.message}`));
    outgoing.end(body);
  };
  /** Opens an event stream (the connection's, or a session's); resolves once the server answered its head. */
  const openStream = (session?: string) =>
    new Promise<void>((resolve) => {
      const outgoing = request(url, {
        method: 'GET',
        agent,
        headers: {
          ...auth,
          Accept: 'text/event-stream',
          'Acp-Connection-Id': connectionId ?? '',
          ...(session === undefined ? {} : { 'Acp-Session-Id': session }),
        },
      });
      outgoing.once('response', (response) => {
        resolve();
        if (response.statusCode !== 200) {
          endedWith(`event stream refused with HTTP ${response.statusCode}`);
          response.resume();
          return;
        }
        const lines = new LineSplitter((line) => {
          if (line.startsWith('data: ')) receiver(line.slice(6));
        });
        response.on('data', (chunk: Buffer) => lines.push(chunk));
        response.once('end', () => endedWith('event stream ended'));
      });
      outgoing.once('error', (error) => {
        resolve();
        endedWith(`event stream failed: ${error.message}`);
      });
      outgoing.end();
    });
  const sessionPattern = /"params":\{"sessionId":"([^"]+)"/;
  return {
    send(text) {
      if (connectionId === undefined) {
        post(text, {}, (status, id, body) => {
          if (status !== 200 || id === undefined) {
            endedWith(`initialize answered HTTP ${status}: ${body}`);
            return;
          }
          connectionId = id;
          void openStream();
          receiver(body);
        });
        return;
      }
      const session = sessionPattern.exec(text.slice(0, 200))?.[1];
      const send = () =>
        post(text, session === undefined ? {} : { 'Acp-Session-Id': session }, (status, _id, body) => {
          if (status !== 202) endedWith(`POST answered HTTP ${status}: ${body}`);
        });
      if (session === undefined) {
        send();
        return;
      }
      let opened = sessions.get(session);
      if (opened === undefined) {
        opened = openStream(session);
        sessions.set(session, opened);
      }
      void opened.then(send);
    },
    setReceiver(next) {
      receiver = next;
    },
    ended,
    async close() {
      if (connectionId !== undefined) {
        await new Promise<void>((resolve) => {
          const outgoing = request(url, {
            method: 'DELETE',
            agent,
            headers: { ...auth, 'Acp-Connection-Id': connectionId ?? '' },
          });
          outgoing.once('response', (response) => {
            response.resume();
            resolve();
          });
          outgoing.once('error', () => resolve());
          outgoing.end();
        });
      }
      agent.destroy();
    },
  };
}
