// The stall guard of a port: a connection that makes no progress for stallTimeoutMs is reported, so it can be closed.
import type { FrameLog } from './frame-log.js';
import type { RelayMetrics } from './relay-metrics.js';

/** What a stall guard samples of a port (any transport's port can provide it). */
export interface StallProbe {
  /** Whether frames travel now (a detached resumable session waits for its peer: nothing is expected of it). */
  readonly isLive: boolean;
  /** Bytes queued for the peer and not yet handed to the network. */
  readonly bufferedAmount: number;
  /** Bytes sent and not yet acknowledged by the peer (resume); absent or 0 on a transport without acknowledgements. */
  readonly unacknowledgedBytes?: number;
  /** Frames the peer acknowledged so far (resume); absent or 0 on a transport without acknowledgements. */
  readonly acknowledgedFrames?: number;
  /** Whether this side reads the peer now: while it does not, acknowledgements cannot arrive, and none is expected. */
  readonly isReading: boolean;
}

/** What did not progress: the peer read nothing of what waits for it, or acknowledged nothing it received. */
export type StallKind = 'read' | 'acknowledge';

/**
 * Reports a connection that makes no progress for `stallTimeoutMs` while something waits on its peer: data queued
 * for it that it does not read (its queue neither empties nor shrinks), or frames it received and does not
 * acknowledge (resume) while this side reads it. A missed pong only catches peers that stop answering pings; a
 * browser whose page stops reading still answers them, and a peer can read everything and acknowledge nothing, so the
 * queue and the acknowledgements themselves are watched. Sampled every quarter of the timeout (25 ms to 1 s).
 * `stallTimeoutMs` 0 disables it.
 *
 * @example
 * ```ts
 * const guard = new StallGuard(port, 60_000, (kind, ms) => port.close(1008, `${kind} stalled for ${ms} ms`));
 * guard.start();
 * ```
 */
export class StallGuard {
  private timer: NodeJS.Timeout | undefined;
  private lastProgressAt = 0;
  private lastQueued = 0;
  private lastAcknowledged = 0;

  constructor(
    private readonly probe: StallProbe,
    private readonly stallTimeoutMs: number,
    private readonly onStall: (kind: StallKind, stalledForMs: number) => void,
  ) {}

  /** Starts (or restarts, e.g. on a new socket) watching; the clock starts now. */
  start(): void {
    if (this.stallTimeoutMs <= 0) return;
    this.stop();
    this.lastProgressAt = performance.now();
    this.lastQueued = this.probe.bufferedAmount;
    this.lastAcknowledged = this.probe.acknowledgedFrames ?? 0;
    const sampleEveryMs = Math.max(25, Math.min(1_000, Math.floor(this.stallTimeoutMs / 4)));
    this.timer = setInterval(() => this.sample(), sampleEveryMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private sample(): void {
    const { probe } = this;
    const now = performance.now();
    const queued = probe.bufferedAmount;
    const acknowledged = probe.acknowledgedFrames ?? 0;
    const awaitingRead = queued > 0;
    const awaitingAcknowledgement = (probe.unacknowledgedBytes ?? 0) > 0 && probe.isReading;
    const progressed =
      !probe.isLive ||
      (!awaitingRead && !awaitingAcknowledgement) ||
      queued < this.lastQueued ||
      acknowledged > this.lastAcknowledged;
    this.lastQueued = queued;
    this.lastAcknowledged = acknowledged;
    if (progressed) {
      this.lastProgressAt = now;
      return;
    }
    const stalledForMs = now - this.lastProgressAt;
    if (stalledForMs < this.stallTimeoutMs) return;
    this.stop();
    this.onStall(awaitingRead ? 'read' : 'acknowledge', stalledForMs);
  }
}

/**
 * What every port does when its guard fires, whatever the transport: one warning naming the peer and what did not
 * progress, the `sendStallClosed` count, and the reason the port closes the connection with (1008), which says the
 * same to the peer: `send stalled: the peer read nothing for N ms` or `no progress: the peer acknowledged nothing for
 * N ms`.
 *
 * @example
 * ```ts
 * const guard = new StallGuard(port, timeoutMs, (kind, ms) => port.terminate({ code: 1008, reason: reportStall(port, log, kind, ms) }));
 * ```
 */
export function reportStall(
  port: StallProbe & { readonly peer: string; readonly metrics: RelayMetrics },
  log: FrameLog,
  kind: StallKind,
  stalledForMs: number,
): string {
  const milliseconds = Math.round(stalledForMs);
  port.metrics.sendStallClosed();
  if (kind === 'read') {
    log.logger.warn(`connection closed: send stalled, the ${port.peer} stopped reading`, {
      ...log.fields,
      stalledForMs: milliseconds,
      bufferedAmount: port.bufferedAmount,
    });
    return `send stalled: the peer read nothing for ${milliseconds} ms`;
  }
  log.logger.warn(`connection closed: no progress, the ${port.peer} acknowledged nothing it received`, {
    ...log.fields,
    stalledForMs: milliseconds,
    unacknowledgedBytes: port.unacknowledgedBytes ?? 0,
  });
  return `no progress: the peer acknowledged nothing for ${milliseconds} ms`;
}
