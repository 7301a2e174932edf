import type { MessageEndpoint } from './transports.js';

/** The JSON-RPC method every echo request uses: an extension method, so no relay treats it as a known one. */
export const ECHO_METHOD = '_acpkit/bench_echo';

/** Answered with a small acknowledgement by every echo: a big message's time is then one way plus a tiny reply. */
export const SINK_METHOD = '_acpkit/bench_sink';

const idPattern = /"id":(\d+)/;

/**
 * A minimal JSON-RPC requester over a {@link MessageEndpoint}: requests are built by string concatenation from
 * pre-serialised params and replies are matched by id from the first bytes of the message, so the driver costs
 * the same microsecond or two on every path and never parses a 16 MiB reply in the hot loop.
 *
 * @example
 * ```ts
 * const client = new RpcClient(endpoint);
 * await client.call('{"text":"hi"}');
 * ```
 */
export class RpcClient {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: string) => void>();
  private failure: Error | undefined;
  /** Rejects when the path ends (peer exit, socket close): measurements race against it so nothing hangs. */
  readonly failed: Promise<never>;

  constructor(readonly endpoint: MessageEndpoint) {
    endpoint.setReceiver((text) => this.receive(text));
    this.failed = endpoint.ended.then((reason) => {
      this.failure = new Error(`path ended: ${reason}`);
      throw this.failure;
    });
    // Observed here so an unawaited `failed` never becomes an unhandled rejection.
    this.failed.catch(() => {});
  }

  /** Sends one request whose params are the given JSON text; `onReply` gets the raw reply. */
  send(paramsJson: string, onReply: (reply: string) => void, method = ECHO_METHOD): void {
    if (this.failure) throw this.failure;
    const id = this.nextId++;
    this.waiting.set(id, onReply);
    this.endpoint.send(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${paramsJson}}`);
  }

  /** Sends one request and resolves with the raw reply text, or rejects when the path ends first. */
  call(paramsJson: string, method = ECHO_METHOD): Promise<string> {
    const reply = new Promise<string>((resolve) => this.send(paramsJson, resolve, method));
    return Promise.race([reply, this.failed]);
  }

  get inFlight(): number {
    return this.waiting.size;
  }

  private receive(text: string): void {
    const match = idPattern.exec(text.length > 200 ? text.slice(0, 200) : text);
    const id = match ? Number(match[1]) : Number((JSON.parse(text) as { id?: unknown }).id);
    const onReply = this.waiting.get(id);
    if (!onReply) return;
    this.waiting.delete(id);
    onReply(text);
  }
}
