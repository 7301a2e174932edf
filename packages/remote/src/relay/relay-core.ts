// The relay core: joins a FramePort (WebSocket or Streamable HTTP) and a LinePort, checks every frame and applies a
// direction's policy.
import type { Readable, Writable } from 'node:stream';
import { type CursorNodes, cursorNodesOf, readCursorSlot } from '../wire/cursor-slot.js';
import { extendWatch, type FrameScanner } from '../wire/frame-scan.js';
import { FrameChecks, type FrameRules, type Refusal, refusalReply } from '../wire/inbound.js';
import { type RouteNodes, readRouteKeys, routeNodesOf } from '../wire/route-keys.js';
import { PauseReason } from './flow-control.js';
import type { FrameLog } from './frame-log.js';
import type { FramePort, InboundRoutes, PortClose } from './frame-port.js';
import { LinePort } from './line-port.js';
import type { FrameRefusalReason } from './relay-metrics.js';

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
   * The network side, made by whoever owns the connection (the server, or the client's connection): a WebSocket
   * (with its socket-level rules and, when negotiated, resume, which the relay never sees) or a Streamable HTTP
   * connection.
   */
  readonly port: FramePort;
  /** Where lines come from and go to: a child's stdout and stdin, or the mirror's stdin and stdout. */
  readonly input: Readable;
  readonly output: Writable;
  readonly maxMessageBytes: number;
  /** Per-frame warnings (rate-limited, carrying the connection's fields). */
  readonly log: FrameLog;
  /** Frames the port received (from the client, or from the remote server). */
  readonly fromPort: DirectionOptions;
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
 * The relay core: joins a port (a WebSocket or a Streamable HTTP connection) and a line stream both ways. Each frame is checked once per direction (size,
 * UTF-8, one JSON object, no raw line break towards a line) and only as deeply as the direction's policy watches,
 * then handed to the policy or forwarded as the bytes received. Writes are corked per event-loop turn; every
 * outbound queue has the same water marks (`HIGH_WATER_BYTES`, flow-control.ts): a full queue pauses whatever feeds it, and
 * with the port's `pauseWhenFull` a peer that does not read is not read either. A frame the relay answers itself
 * goes through the same queues (and a peer that floods such frames without reading is closed). {@link closed}
 * settles when the port has ended (with resume, a dropped socket is not an end: the port swaps the socket under the
 * relay); the line input is then no longer read. What the users add (a child process, in-flight tracking) they do
 * around it. Metrics, resume and routing attach at the port's frame entry and exit points (`FramePort.receive`/`send`),
 * where an absent policy costs nothing per frame.
 *
 * @example
 * ```ts
 * const relay = new Relay({ port, input: child.stdout, output: child.stdin, maxMessageBytes, log,
 *   fromPort: { rules: { utf8: 'trusted', singleLine: true }, sender: 'client' },
 *   fromLines: { rules: { utf8: 'refuse', singleLine: false }, sender: 'agent', oversize: () => relay.port.close(1009) } });
 * relay.start();
 * ```
 */
export class Relay {
  readonly port: FramePort;
  readonly lines: LinePort;
  /** Settles with the close code and reason once the port has ended. */
  readonly closed: Promise<PortClose>;
  private readonly portChecks: FrameChecks;
  private readonly lineChecks: FrameChecks;
  private readonly fromPort: RelayDirection;
  /** What the port routes by, found in the line direction's watch; undefined when the port routes nothing. */
  private readonly routeNodes: RouteNodes | undefined;
  /** Where a cursor goes, when the port's watch asks for it (a Streamable HTTP server stamps `acp/cursor`). */
  private readonly cursorNodes: CursorNodes | undefined;
  private readonly fromLines: RelayDirection;
  /** The port's bookkeeping of received frames, fed from the port direction's scan (see `FramePort.inboundRoutes`). */
  private readonly inboundRoutes: InboundRoutes | undefined;
  private readonly inboundRouteNodes: RouteNodes | undefined;
  private stopReceiving: () => void = () => {};
  private finished = false;
  private portPolicy: FramePolicy | undefined;
  private linePolicy: FramePolicy | undefined;

  constructor(private readonly options: RelayOptions) {
    const port = options.port;
    this.port = port;
    this.portPolicy = options.fromPort.policy;
    this.linePolicy = options.fromLines.policy;
    // Relayed lines wait while the port's queue is full.
    port.onFull(() => {
      this.lines.reading.pause(PauseReason.TargetFull);
      port.whenDrained(() => this.lines.reading.resume(PauseReason.TargetFull));
    });
    this.lines = new LinePort(
      options.input,
      options.output,
      options.maxMessageBytes,
      {
        onLine: (line) => this.onLine(line),
        onOversize: (head) => {
          port.metrics.frameRefused(options.fromLines.sender, 'oversize');
          options.fromLines.oversize(head);
        },
      },
      () => options.linesEnded?.(),
    );
    this.logFlowControl();
    // A port that reads what it receives (the mirror's) gets it from this scan: measured at 16 KiB, the mirror's
    // second scan of every answer was ~35k of its ~206k instructions per message (callgrind).
    this.inboundRoutes = port.inboundRoutes;
    const portRules = options.fromPort.rules;
    const inboundWatch =
      this.inboundRoutes === undefined ? undefined : extendWatch(portRules.watch, this.inboundRoutes.watch);
    this.inboundRouteNodes = inboundWatch === undefined ? undefined : routeNodesOf(inboundWatch);
    this.portChecks = new FrameChecks(
      inboundWatch === undefined ? portRules : { ...portRules, watch: inboundWatch },
    );
    // Lines become the port's frames: they satisfy the port's rules too (SSE: one line each), and the one scan of
    // each line records what the port routes by, in the policy's own watch tree (its nodes stay valid).
    const lineRules = options.fromLines.rules;
    const routeWatch =
      port.routeWatch === undefined ? undefined : extendWatch(lineRules.watch, port.routeWatch);
    this.routeNodes = routeWatch === undefined ? undefined : routeNodesOf(routeWatch);
    this.cursorNodes = routeWatch === undefined ? undefined : cursorNodesOf(routeWatch);
    this.lineChecks = new FrameChecks({
      ...lineRules,
      singleLine: lineRules.singleLine || port.outboundRules?.singleLine === true,
      ...(routeWatch === undefined ? {} : { watch: routeWatch }),
    });
    this.fromPort = {
      scan: this.portChecks.scanner,
      forward: (payload) => this.toLines(payload),
      reply: (text) => port.reply(text),
    };
    this.fromLines = {
      scan: this.lineChecks.scanner,
      forward: (payload) => this.toPort(payload),
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
    const handle = (frame: Buffer) => this.onFrame(frame);
    this.stopReceiving = this.inboundRoutes?.receive(handle) ?? this.port.receive(handle);
    input.on('error', this.onInputError);
    output.on('error', this.onOutputError);
    this.lines.start();
  }

  /** Relays bytes to the line side (one NDJSON line), pausing the port's input while the line output is full. */
  toLines(payload: Buffer | string): void {
    const { lines, port } = this;
    lines.write(payload);
    if (lines.isFull && !port.reading.has(PauseReason.TargetFull)) {
      port.reading.pause(PauseReason.TargetFull);
      lines.whenDrained(() => port.reading.resume(PauseReason.TargetFull));
    }
  }

  /**
   * Relays the line just checked (or the policy's rewrite of it) to the port: one frame, with its route keys when the
   * port routes (read from this line's scan: rewrites never touch the members routing reads). The line input waits
   * while the port's queue is full.
   */
  toPort(payload: Buffer | string): void {
    const nodes = this.routeNodes;
    if (nodes === undefined) {
      this.port.send(payload);
      return;
    }
    const scanner = this.lineChecks.scanner;
    const keys = readRouteKeys(scanner, nodes);
    const cursorNodes = this.cursorNodes;
    // The slot's positions hold only for the bytes scanned (not for a policy's rewrite of them).
    if (cursorNodes === undefined || scanner.frame !== payload) this.port.send(payload, keys);
    else this.port.send(payload, { ...keys, cursorSlot: readCursorSlot(scanner, cursorNodes) });
  }

  /**
   * Drops both directions' policies: from now on every frame that passes the checks is forwarded as received, at no
   * extra cost. For policies that only watch the start of a connection (serveCommand's `initialize`).
   */
  forwardUnchanged(): void {
    this.portPolicy = undefined;
    this.linePolicy = undefined;
  }

  private onFrame(frame: Buffer): void {
    if (this.finished) return;
    const checks = this.portChecks;
    const payload = checks.check(frame);
    if (payload === undefined)
      this.refused(this.options.fromPort, checks.refusal!, (text) => this.port.reply(text));
    else if (this.passesPort(payload)) {
      const policy = this.portPolicy;
      if (policy === undefined) this.toLines(payload);
      else this.applyPolicy(policy, payload, this.fromPort);
    }
    checks.release();
  }

  /** Whether the port lets a checked frame through (told its route keys first, when it reads them). */
  private passesPort(payload: Buffer): boolean {
    const routes = this.inboundRoutes;
    if (routes === undefined) return true;
    return routes.received(readRouteKeys(this.portChecks.scanner, this.inboundRouteNodes!), payload);
  }

  private onLine(line: Buffer): void {
    if (line.length === 0 || this.finished) return;
    const { fromLines } = this.options;
    const checks = this.lineChecks;
    const payload = checks.check(line);
    const policy = this.linePolicy;
    if (payload === undefined) this.refused(fromLines, checks.refusal!, (text) => this.toLines(text));
    else if (policy === undefined) this.toPort(payload);
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
    this.port.metrics.frameRefused(direction.sender, REFUSAL_METRIC[refusal.reason]);
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
    const port = this.port;
    const name = port.transport === 'websocket' ? 'the WebSocket' : 'the Streamable HTTP connection';
    port.reading.onChange = (paused, reason) => {
      if (!paused) debug(`resumed reading ${name}`, log.fields);
      else {
        const why =
          reason === PauseReason.TargetFull ? `${lineNames.output} is full` : 'its send buffer is full';
        debug(`paused reading ${name}: ${why}`, {
          ...log.fields,
          bufferedAmount: port.bufferedAmount,
        });
      }
    };
    this.lines.reading.onChange = (paused) => {
      if (!paused) debug(`resumed reading ${lineNames.input}`, log.fields);
      else {
        debug(
          `paused reading ${lineNames.input}: ${name === 'the WebSocket' ? 'the WebSocket send buffer' : `${name}'s queue`} is full`,
          {
            ...log.fields,
            bufferedAmount: port.bufferedAmount,
          },
        );
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
