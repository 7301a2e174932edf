// The relay core: joins a WebSocketPort and a LinePort, checks every frame and applies a direction's policy.
import type { Readable, Writable } from 'node:stream';
import type { FrameScanner } from '../wire/frame-scan.js';
import { FrameChecks, type FrameRules, type Refusal, refusalReply } from '../wire/inbound.js';
import { PauseReason } from './flow-control.js';
import type { FrameLog } from './frame-log.js';
import { LinePort } from './line-port.js';
import type { FrameRefusalReason } from './relay-metrics.js';
import type { PortClose, WebSocketPort } from './websocket-port.js';

/** What a policy sees of the direction a frame travels in. */
export interface RelayDirection {
  /** The scan of the frame being handled: positions of the members the direction watches. */
  readonly scan: FrameScanner;
  /** Relays bytes (one JSON-RPC message) to the other side. */
  forward(payload: Buffer | string): void;
  /** Answers the sender of the frame (a JSON-RPC message the relay writes itself). */
  reply(text: string): void;
}

/**
 * A direction's policy: decides what happens to each frame that passed the checks (forward it as is, forward a
 * rewritten copy, answer it, drop it). Absent, frames are forwarded unchanged at no extra cost.
 */
export type FramePolicy = (payload: Buffer, direction: RelayDirection) => void;

/** One direction of a relay. */
export interface DirectionOptions {
  /** The checks every frame gets (UTF-8, JSON, line breaks) and the members the policy watches. */
  readonly rules: FrameRules;
  readonly policy?: FramePolicy;
  /**
   * A frame that failed the checks: by default the sender gets the JSON-RPC error (id null) and a rate-limited
   * warning is logged; a function replaces that.
   */
  readonly refused?: (refusal: Refusal) => void;
  /** Log label of the sender in the default refusal warning (`client`, `remote`, `editor`, ...). */
  readonly sender: string;
}

/** Options of {@link Relay}. */
export interface RelayOptions {
  /**
   * The WebSocket side, made by whoever owns the connection (the server, or the client's connection): it carries the
   * socket-level rules (`pauseWhenFull`) and, when negotiated, resume, which the relay never sees.
   */
  readonly port: WebSocketPort;
  /** Where lines come from and go to: a child's stdout and stdin, or the mirror's stdin and stdout. */
  readonly input: Readable;
  readonly output: Writable;
  readonly maxMessageBytes: number;
  /** Per-frame warnings (rate-limited, carrying the connection's fields). */
  readonly log: FrameLog;
  readonly fromWebSocket: DirectionOptions;
  /** Frames read from the line input; `oversize` gets the first bytes of a line over the limit. */
  readonly fromLines: DirectionOptions & { readonly oversize: (head: Buffer) => void };
  /** How flow-control debug lines name the line side, e.g. `{ input: 'agent stdout', output: 'agent stdin' }`. */
  readonly lineNames: { readonly input: string; readonly output: string };
  /** The line input ended (EOF), after its last line was handled. */
  readonly linesEnded?: () => void;
  /** The line input or output failed (e.g. EPIPE when the reader went away). */
  readonly linesFailed?: (error: Error, side: 'input' | 'output') => void;
}

const REFUSAL_METRIC: Readonly<Record<Refusal['reason'], FrameRefusalReason>> = {
  utf8: 'invalid_utf8',
  parse: 'not_json_rpc',
  'not-object': 'not_json_rpc',
  batch: 'not_json_rpc',
};

/**
 * The relay core: joins a WebSocket and a line stream both ways. Each frame is checked once per direction (size,
 * UTF-8, one JSON object, no raw line break towards a line) and only as deeply as the direction's policy watches,
 * then handed to the policy or forwarded as the bytes received. Writes are corked per event-loop turn; every
 * outbound queue has the same water marks (`HIGH_WATER_BYTES`, flow-control.ts): a full queue pauses whatever feeds it, and
 * with the port's `pauseWhenFull` a peer that does not read is not read either. A frame the relay answers itself
 * goes through the same queues (and a peer that floods such frames without reading is closed). {@link closed}
 * settles when the port has ended (with resume, a dropped socket is not an end: the port swaps the socket under the
 * relay); the line input is then no longer read. What the users add (a child process, in-flight tracking) they do
 * around it. Metrics and resume attach at the port's frame entry and exit points (`WebSocketPort.receive`/`send`),
 * where an absent policy costs nothing per frame.
 *
 * @example
 * ```ts
 * const relay = new Relay({ port, input: child.stdout, output: child.stdin, maxMessageBytes, log,
 *   fromWebSocket: { rules: { utf8: 'trusted', singleLine: true }, sender: 'client' },
 *   fromLines: { rules: { utf8: 'refuse', singleLine: false }, sender: 'agent', oversize: () => relay.webSocket.close(1009) } });
 * relay.start();
 * ```
 */
export class Relay {
  readonly webSocket: WebSocketPort;
  readonly lines: LinePort;
  /** Settles with the close code and reason once the port has ended. */
  readonly closed: Promise<PortClose>;
  private readonly webSocketChecks: FrameChecks;
  private readonly lineChecks: FrameChecks;
  private readonly fromWebSocket: RelayDirection;
  private readonly fromLines: RelayDirection;
  private stopReceiving: () => void = () => {};
  private finished = false;
  private webSocketPolicy: FramePolicy | undefined;
  private linePolicy: FramePolicy | undefined;

  constructor(private readonly options: RelayOptions) {
    this.webSocket = options.port;
    this.webSocketPolicy = options.fromWebSocket.policy;
    this.linePolicy = options.fromLines.policy;
    // Relayed lines wait while the socket's queue is full.
    this.webSocket.onFull(() => {
      this.lines.reading.pause(PauseReason.TargetFull);
      this.webSocket.whenDrained(() => this.lines.reading.resume(PauseReason.TargetFull));
    });
    this.lines = new LinePort(
      options.input,
      options.output,
      options.maxMessageBytes,
      {
        onLine: (line) => this.onLine(line),
        onOversize: (head) => {
          this.webSocket.metrics.frameRefused(options.fromLines.sender, 'oversize');
          options.fromLines.oversize(head);
        },
      },
      () => options.linesEnded?.(),
    );
    this.logFlowControl();
    this.webSocketChecks = new FrameChecks(options.fromWebSocket.rules);
    this.lineChecks = new FrameChecks(options.fromLines.rules);
    this.fromWebSocket = {
      scan: this.webSocketChecks.scanner,
      forward: (payload) => this.toLines(payload),
      reply: (text) => this.webSocket.reply(text),
    };
    this.fromLines = {
      scan: this.lineChecks.scanner,
      forward: (payload) => this.toWebSocket(payload),
      reply: (text) => this.toLines(text),
    };
    this.closed = options.port.closed.then((close) => {
      this.finish();
      return close;
    });
  }

  /** Starts relaying in both directions. */
  start(): void {
    const { input, output } = this.options;
    this.stopReceiving = this.webSocket.receive((frame) => this.onFrame(frame));
    input.on('error', this.onInputError);
    output.on('error', this.onOutputError);
    this.lines.start();
  }

  /** Relays bytes to the line side (one NDJSON line), pausing the socket while the line output is full. */
  toLines(payload: Buffer | string): void {
    const { lines } = this;
    lines.write(payload);
    if (lines.isFull && !this.webSocket.reading.has(PauseReason.TargetFull)) {
      this.webSocket.reading.pause(PauseReason.TargetFull);
      lines.whenDrained(() => this.webSocket.reading.resume(PauseReason.TargetFull));
    }
  }

  /** Relays bytes to the socket (one text frame); the line input waits while the socket's queue is full. */
  toWebSocket(payload: Buffer | string): void {
    this.webSocket.send(payload);
  }

  /**
   * Drops both directions' policies: from now on every frame that passes the checks is forwarded as received, at no
   * extra cost. For policies that only watch the start of a connection (serveCommand's `initialize`).
   */
  forwardUnchanged(): void {
    this.webSocketPolicy = undefined;
    this.linePolicy = undefined;
  }

  /** Stops reading the line input for good (the other side is gone). */
  stopLines(): void {
    this.lines.stop();
  }

  private onFrame(frame: Buffer): void {
    if (this.finished) return;
    const { fromWebSocket } = this.options;
    const checks = this.webSocketChecks;
    const payload = checks.check(frame);
    const policy = this.webSocketPolicy;
    if (payload === undefined)
      this.refused(fromWebSocket, checks.refusal!, (text) => this.webSocket.reply(text));
    else if (policy === undefined) this.toLines(payload);
    else this.applyPolicy(policy, payload, this.fromWebSocket);
    checks.release();
  }

  private onLine(line: Buffer): void {
    if (line.length === 0 || this.finished) return;
    const { fromLines } = this.options;
    const checks = this.lineChecks;
    const payload = checks.check(line);
    const policy = this.linePolicy;
    if (payload === undefined) this.refused(fromLines, checks.refusal!, (text) => this.toLines(text));
    else if (policy === undefined) this.toWebSocket(payload);
    else this.applyPolicy(policy, payload, this.fromLines);
    checks.release();
  }

  private applyPolicy(policy: FramePolicy, payload: Buffer, direction: RelayDirection): void {
    try {
      policy(payload, direction);
    } catch (error) {
      // A policy bug must not take the relay (and every other message) down with it.
      this.options.log.logger.error('relay policy failed; message dropped', {
        ...this.options.log.fields,
        error: String(error),
      });
    }
  }

  private refused(direction: DirectionOptions, refusal: Refusal, answer: (text: string) => void): void {
    this.webSocket.metrics.frameRefused(direction.sender, REFUSAL_METRIC[refusal.reason]);
    if (direction.refused) {
      direction.refused(refusal);
      return;
    }
    const { text, note } = refusalReply(refusal);
    this.options.log.warn(`${direction.sender} sent an ${note}`);
    answer(text);
  }

  private logFlowControl(): void {
    const { log, lineNames } = this.options;
    const debug = log.logger.debug?.bind(log.logger);
    if (debug === undefined) return;
    const port = this.webSocket;
    this.webSocket.reading.onChange = (paused, reason) => {
      if (!paused) debug('resumed reading the WebSocket', log.fields);
      else {
        const why =
          reason === PauseReason.TargetFull ? `${lineNames.output} is full` : 'its send buffer is full';
        debug(`paused reading the WebSocket: ${why}`, {
          ...log.fields,
          bufferedAmount: port.bufferedAmount,
        });
      }
    };
    this.lines.reading.onChange = (paused) => {
      if (!paused) debug(`resumed reading ${lineNames.input}`, log.fields);
      else {
        debug(`paused reading ${lineNames.input}: the WebSocket send buffer is full`, {
          ...log.fields,
          bufferedAmount: port.bufferedAmount,
        });
      }
    };
  }

  private readonly onInputError = (error: Error) => this.options.linesFailed?.(error, 'input');
  private readonly onOutputError = (error: Error) => this.options.linesFailed?.(error, 'output');

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.stopReceiving();
    this.lines.stop();
  }
}
