// The hold agent's sequence behaviour for exactly-once tests: requests `_test/echo {seq, ticks}` each answered after
// `ticks` notifications, `_test/received` answering every seq in arrival order; and what a client must then receive.
import { streamApp } from './stream-app.js';

/** What the agent side sends for requests 1..count with `ticks` notifications each: ticks first, then the answer. */
export function expectedDownstream(count: number, ticks: number): unknown[] {
  const messages: unknown[] = [];
  let tick = 0;
  for (let seq = 1; seq <= count; seq += 1) {
    for (let index = 0; index < ticks; index += 1) {
      tick += 1;
      messages.push({ jsonrpc: '2.0', method: '_test/tick', params: { n: tick } });
    }
    messages.push({ jsonrpc: '2.0', id: seq, result: { seq, ticks } });
  }
  return messages;
}

export const sequence = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

/** An in-process agent with the hold agent's sequence behaviour, on the SDK `Stream` `serveAcp` gives it. */
export function sequenceApp() {
  const received: number[] = [];
  let ticks = 0;
  return streamApp((message) => {
    if (message.method === '_test/received') return [{ id: message.id, result: { received } }];
    // A server keeps a session for a resume once its agent answered initialize.
    if (message.method === 'initialize') return [{ id: message.id, result: { protocolVersion: 1 } }];
    received.push(message.params.seq);
    const out: object[] = [];
    for (let index = 0; index < message.params.ticks; index += 1) {
      ticks += 1;
      out.push({ method: '_test/tick', params: { n: ticks } });
    }
    return [...out, { id: message.id, result: message.params }];
  });
}
