// Unit tests of the mirror's frame policy: rewrites, the unstable gate, host ownership and transport-loss answers.
import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { FrameLog } from '../relay/frame-log.js';
import type { RemoteLogger } from '../shared/logger.js';
import { ByteSplice } from '../wire/frame-rewrite.js';
import { FrameChecks } from '../wire/inbound.js';
import { MirrorPolicy, type MirrorPolicyOptions } from './mirror-policy.js';

function harness(options: Partial<Omit<MirrorPolicyOptions, 'log'>> = {}, connected = true) {
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const logger: RemoteLogger = {
    info() {},
    warn: (message, fields) => warnings.push({ message, fields }),
    error() {},
  };
  const policy = new MirrorPolicy({
    hostOwnership: 'remote',
    useUnstableProtocol: false,
    emitLatencyMeta: false,
    remoteCwd: undefined,
    log: new FrameLog(logger),
    maxPendingRequests: 256,
    ...options,
  });
  const run = (side: 'editor' | 'remote', text: string) => {
    const checks = new FrameChecks(side === 'editor' ? policy.editorRules : policy.remoteRules);
    const payload = checks.check(Buffer.from(text));
    if (payload === undefined) throw new Error(`refused: ${text}`);
    const forwarded: string[] = [];
    const replies: string[] = [];
    const handle =
      side === 'editor'
        ? policy.fromEditor(
            () => connected,
            () => new RequestError(-32603, 'lost'),
          )
        : policy.fromRemote();
    handle(payload, {
      scan: checks.scanner,
      forward: (bytes) => forwarded.push(bytes.toString()),
      reply: (reply) => replies.push(reply),
    });
    return { forwarded, replies };
  };
  return { policy, run, warnings };
}

describe('MirrorPolicy: host ownership on initialize', () => {
  const { run } = harness();
  const initialize = (capabilities: string) =>
    run(
      'editor',
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1${capabilities}}}`,
    ).forwarded[0];

  it('sets fs read/write and terminal false in place, keeping every other byte', () => {
    expect(
      initialize(
        ',"clientCapabilities":{"fs":{"readTextFile":true,"x":1.10},"terminal":true,"elicitation":{"form":{}}}',
      ),
    ).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"x":1.10,"writeTextFile":false},"terminal":false,"elicitation":{"form":{}}}}}',
    );
  });

  it('adds what is missing, in the order an object spread gave', () => {
    expect(initialize('')).toContain(
      '"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}}',
    );
    expect(initialize(',"clientCapabilities":{}')).toContain(
      '"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}',
    );
    expect(initialize(',"clientCapabilities":{"fs":null,"terminal":{"deep":[[1]]}}')).toContain(
      '"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}',
    );
    expect(initialize(',"clientCapabilities":"none"')).toContain(
      '"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}',
    );
  });

  it('denies every duplicate, so no parser sees a capability the editor offered', () => {
    const forwarded = initialize(
      ',"clientCapabilities":{"terminal":true},"clientCapabilities":{"terminal":true}',
    );
    expect(forwarded?.match(/"terminal":false/g)).toHaveLength(2);
    expect(forwarded).not.toContain('true');
  });

  it('changes nothing with client-passthrough', () => {
    const text =
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientCapabilities":{"terminal":true}}}';
    expect(harness({ hostOwnership: 'client-passthrough' }).run('editor', text).forwarded).toEqual([text]);
  });
});

describe('MirrorPolicy: cwd of session requests', () => {
  const { run } = harness({ remoteCwd: '/srv/project' });

  it('rewrites a string cwd to remote_cwd and nothing else', () => {
    expect(
      run(
        'editor',
        '{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/home/me","mcpServers":[]}}',
      ).forwarded,
    ).toEqual([
      '{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/srv/project","mcpServers":[]}}',
    ]);
  });

  it('leaves requests without a string cwd, and other methods, unchanged', () => {
    for (const text of [
      '{"jsonrpc":"2.0","id":3,"method":"session/list","params":{}}',
      '{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":null}}',
      '{"jsonrpc":"2.0","id":3,"method":"_x/new","params":{"cwd":"/home/me"}}',
      '{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/srv/project"}}',
    ]) {
      expect(run('editor', text).forwarded).toEqual([text]);
    }
  });
});

describe('MirrorPolicy: unstable gate and in-flight tracking', () => {
  it('answers unstable requests itself with the id exactly as sent', () => {
    const { run } = harness();
    const { forwarded, replies } = run(
      'editor',
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"session/fork","params":{}}',
    );
    expect(forwarded).toEqual([]);
    expect(replies[0]).toMatch(/^\{"jsonrpc":"2.0","id":12345678901234567890,"error":\{"code":-32601/);
  });

  it('tracks editor requests until the remote answers, matching 1.0 with 1', () => {
    const { policy, run } = harness();
    let answered = 0;
    policy.onAnswered = () => {
      answered += 1;
    };
    run('editor', '{"jsonrpc":"2.0","id":1.0,"method":"session/prompt","params":{}}');
    run('editor', '{"jsonrpc":"2.0","id":"a","method":"session/prompt","params":{}}');
    expect([...policy.inFlight.values()]).toEqual(['1.0', '"a"']);
    run('remote', '{"jsonrpc":"2.0","id":1,"result":{}}');
    expect([...policy.inFlight.values()]).toEqual(['"a"']);
    expect(answered).toBe(1);
    // An escaped string and a 64-bit id come back as the remote's JSON writer writes them.
    run('remote', '{"jsonrpc":"2.0","id":"\\u0061","result":{}}');
    run('editor', '{"jsonrpc":"2.0","id":12345678901234567890,"method":"session/prompt","params":{}}');
    run('remote', '{"jsonrpc":"2.0","id":12345678901234567000,"error":{"code":1,"message":"m"}}');
    expect(policy.inFlight.size).toBe(0);
    expect(answered).toBe(3);
  });

  it('answers a request with the transport-loss error when the socket is not open', () => {
    const { run } = harness({}, false);
    expect(run('editor', '{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{}}').replies[0]).toBe(
      '{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"lost"}}',
    );
  });
});

describe('MirrorPolicy: host ownership enforced on requests from the remote', () => {
  it('answers fs/* and terminal/* requests with -32601 and forwards nothing, whatever the shape', () => {
    const { run, warnings } = harness();
    const cases: Array<[string, string | undefined]> = [
      ['{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{}}', '5'],
      ['{"jsonrpc":"2.0","id":"t","method":"terminal/create"}', '"t"'],
      ['{"jsonrpc":"2.0","id":6,"method":"fs\\/write_text_file"}', '6'],
      ['{"jsonrpc":"2.0","id":7,"method":"x","method":"terminal/kill"}', '7'],
      ['{"jsonrpc":"2.0","id":8,"method":"terminal/kill","method":"x"}', '8'],
      ['{"jsonrpc":"2.0","id":[1],"method":"fs/read_text_file"}', 'null'],
      ['{"jsonrpc":"2.0","method":"terminal/output"}', undefined],
    ];
    for (const [frame, id] of cases) {
      const { forwarded, replies } = run('remote', frame);
      expect(forwarded, frame).toEqual([]);
      if (id === undefined) expect(replies).toEqual([]);
      else
        expect(replies[0], frame).toMatch(
          new RegExp(`^\\{"jsonrpc":"2.0","id":${id.replace(/[[\]]/g, '\\$&')},"error":\\{"code":-32601`),
        );
    }
    expect(warnings.length).toBe(cases.length);
    expect(warnings[0]).toEqual({
      message: 'refused a host capability request from the remote: host ownership is remote',
      fields: { method: 'fs/read_text_file' },
    });
  });

  it('relays them with client-passthrough', () => {
    const text = '{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{}}';
    expect(harness({ hostOwnership: 'client-passthrough' }).run('remote', text).forwarded).toEqual([text]);
  });
});

describe('MirrorPolicy: latency metadata', () => {
  it('adds timings under params._meta of session/update, keeping the numbers already there', () => {
    const { run } = harness({ emitLatencyMeta: true });
    run(
      'editor',
      '{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}',
    );
    const update =
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","_meta":{"n":9007199254740993}}}';
    const [relayed] = run('remote', update).forwarded;
    expect(relayed).toMatch(
      /^\{"jsonrpc":"2.0","method":"session\/update","params":\{"sessionId":"s","_meta":\{"n":9007199254740993,"acpkit.dev\/transport-latency":\{"receivedAtMs":\d+,"elapsedMs":[\d.]+,"firstUpdateMs":[\d.]+,"updateCount":1\}\}\}\}$/,
    );
    const [withoutMeta] = run(
      'remote',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x"}}',
    ).forwarded;
    expect(JSON.parse(withoutMeta!).params._meta['acpkit.dev/transport-latency'].receivedAtMs).toBeTypeOf(
      'number',
    );
    const notObject = '{"jsonrpc":"2.0","method":"session/update","params":[]}';
    expect(run('remote', notObject).forwarded).toEqual([notObject]);
  });
});

describe('MirrorPolicy: a frame it cannot rewrite', () => {
  it('answers the request with an error and keeps going', () => {
    const { run } = harness();
    const apply = ByteSplice.prototype.apply;
    ByteSplice.prototype.apply = () => {
      throw new RangeError('Maximum call stack size exceeded');
    };
    try {
      const { forwarded, replies } = run(
        'editor',
        '{"jsonrpc":"2.0","id":12345678901234567890,"method":"initialize","params":{"clientCapabilities":{"terminal":true}}}',
      );
      expect(forwarded).toEqual([]);
      expect(replies[0]).toMatch(/^\{"jsonrpc":"2.0","id":12345678901234567890,"error":\{"code":-32603/);
    } finally {
      ByteSplice.prototype.apply = apply;
    }
    const after = '{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{}}';
    expect(run('editor', after).forwarded).toEqual([after]);
  });
});

describe('MirrorPolicy: editor requests waiting for an answer', () => {
  it('answers one past maxPendingRequests itself, and takes requests again once answers came', () => {
    const { policy, run, warnings } = harness({ maxPendingRequests: 2 });
    const request = (id: number) => run('editor', `{"jsonrpc":"2.0","id":${id},"method":"session/prompt"}`);
    expect(request(1).forwarded).toHaveLength(1);
    expect(request(2).forwarded).toHaveLength(1);
    const refused = request(3);
    expect(refused.forwarded).toEqual([]);
    expect(JSON.parse(refused.replies[0]!)).toMatchObject({
      id: 3,
      error: { code: -32603, data: { reason: 'too_many_pending_requests', maxPendingRequests: 2 } },
    });
    expect(warnings[0]?.message).toMatch(/too many editor requests waiting/);
    expect(policy.inFlight.size).toBe(2);
    run('remote', '{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(request(4).forwarded).toHaveLength(1);
  });
});
