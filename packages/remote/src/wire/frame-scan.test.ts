// Property tests of the frame scan: WebAssembly against JavaScript, and both against JSON.parse.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileWatch, FrameScanner, ValueKind, type WatchNode } from './frame-scan.js';
import { frameScanModule } from './frame-scan-wasm.js';

/** What `JSON.parse` says: whether the text is exactly one JSON object (what the scan must accept). */
function isOneObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Both scans: WebAssembly (frames up to 256 KiB where it runs) and JavaScript; each must hold on its own. */
const engines = ['auto', 'javascript'] as const;

const corpus = [
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}',
  '{"jsonrpc":"2.0","id":"r-1","method":"session/new","params":{"cwd":"/x","mcpServers":[]}}',
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"a":[1,2.5,-3e+2,true,false,null]}}}',
  '{"jsonrpc":"2.0","id":7,"result":{"ok":true}}',
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
  '{ "id" : 1 , "method" : "a\\"b\\u0041" , "params" : { "id" : 5 } }',
  '{"id":"\\u00e9t\\u00e9","method":"é✓"}',
  '{"id":1.5e3,"result":null}',
  '{"id":-0,"error":{}}',
  '{"id":true,"method":"x"}',
  '{"foo":[[[],{}],[{"a":{"b":[]}}]]}',
  '{}',
  '\t{ }\t ',
  '{"id":1,"id":"two","method":"m","method":"n"}',
  '{"a":"\\/\\b\\f\\n\\r\\t\\\\"}',
  `{"long":"${'x'.repeat(100)}\\"${'y'.repeat(100)}\\u0041${'z'.repeat(40)}"}`,
];

const invalid = [
  'hello',
  '42',
  'null',
  '"text"',
  '[{"jsonrpc":"2.0","id":1,"method":"x"}]',
  '{',
  '{"a"}',
  '{"a":}',
  '{"a":1,}',
  '{,"a":1}',
  '{"a":1}}',
  '{"a":1} {"b":2}',
  '{"a":01}',
  '{"a":1.}',
  '{"a":.5}',
  '{"a":1e}',
  '{"a":+1}',
  '{"a":tru}',
  '{"a":nul}',
  '{"a":"\\x"}',
  '{"a":"\\u12G4"}',
  '{"a":"\u0001"}',
  '{"a":"tab\there"}',
  "{'a':1}",
  '{"a":[1,]}',
  '{"a":[,1]}',
  '{"a":[1 2]}',
  '{"a" 1}',
  '{a:1}',
  '\ufeff{}',
  '{"a":"unterminated}',
  '{"a":"\\',
  '{"a":"\\u00"}',
  `{"long":"${'x'.repeat(100)}\u0001${'y'.repeat(100)}"}`,
  `{"long":"${'x'.repeat(100)}`,
];

describe.each(engines)('FrameScanner.scan (%s)', (engine) => {
  const scanner = new FrameScanner(undefined, engine);
  const accepts = (text: string) => scanner.scan(Buffer.from(text));

  it('accepts exactly one JSON object, like JSON.parse', () => {
    for (const text of corpus) expect(accepts(text), text).toBe(true);
    for (const text of invalid) expect(accepts(text), text).toBe(false);
  });

  it('accepts raw line breaks between tokens and reports them; never inside strings', () => {
    expect(accepts('{"id":1,\n"method":"m"\r\n}')).toBe(true);
    expect(scanner.lineBreaks).toBe(true);
    expect(accepts('{"id":1}')).toBe(true);
    expect(scanner.lineBreaks).toBe(false);
    expect(accepts('{"a":"x\ny"}')).toBe(false);
  });

  it('agrees with JSON.parse on every one-byte mutation of real frames', () => {
    // Deterministic differential test: replace, delete or insert one byte at every position.
    const replacements = [
      '{',
      '}',
      '[',
      ']',
      '"',
      '\\',
      ':',
      ',',
      ' ',
      '\t',
      '\n',
      '0',
      '-',
      '.',
      'e',
      'a',
      'u',
      '\u0001',
      'é',
    ];
    for (const base of corpus) {
      for (let index = 0; index <= base.length; index += 1) {
        const variants = [base.slice(0, index) + base.slice(index + 1)];
        for (const replacement of replacements) {
          variants.push(base.slice(0, index) + replacement + base.slice(index + 1));
          variants.push(base.slice(0, index) + replacement + base.slice(index));
        }
        for (const text of variants) expect(accepts(text), text).toBe(isOneObject(text));
      }
    }
  });

  it('finds quotes, escapes and control characters at every position and alignment of long strings', () => {
    const specials = [
      '"',
      '\\',
      '\\"',
      '\\u00e9',
      '\\u12',
      '\u0001',
      '\u001f',
      '\n',
      'é',
      '✓',
      ' ',
      '~',
      '\u007f',
    ];
    for (const special of specials) {
      for (const before of [0, 1, 2, 3, 5, 31, 32, 33, 63, 64, 65, 200]) {
        for (const shift of [0, 1, 2, 3]) {
          const text = `${' '.repeat(shift)}{"a":"${'a'.repeat(before)}${special}${'b'.repeat(70)}"}`;
          // A subarray at an odd offset of a bigger buffer: the word view must handle any alignment.
          const padded = Buffer.concat([Buffer.alloc(shift + 1, 0x20), Buffer.from(text)]).subarray(
            shift + 1,
          );
          expect(scanner.scan(padded), JSON.stringify(text)).toBe(isOneObject(text));
        }
      }
    }
  });

  it('scans nesting of any depth without recursion, and reports the depth', () => {
    const depth = 100_000;
    expect(accepts(`{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`)).toBe(true);
    expect(scanner.maxDepth).toBe(depth + 1);
    expect(accepts(`{"a":${'['.repeat(depth)}${']'.repeat(depth - 1)}}`)).toBe(false);
  });

  it('scans a 16 MiB string in one pass', () => {
    const big = Buffer.from(
      `{"jsonrpc":"2.0","id":9,"method":"m","params":{"blob":"${'x'.repeat(16 * 1024 * 1024)}"}}`,
    );
    expect(scanner.scan(big)).toBe(true);
  });
});

describe.each(engines)('FrameScanner watches (%s)', (engine) => {
  const watch = compileWatch({
    id: true,
    method: true,
    params: { cwd: true, clientCapabilities: { fs: { readTextFile: true } } },
  });
  const watching = new FrameScanner(watch, engine);
  const [id, method, params] = watch.children;
  const members = (node: typeof id) =>
    Array.from({ length: watching.memberCount }, (_, member) => member).filter(
      (member) => watching.memberNode[member] === node,
    );

  it('records top-level members with exact value positions, duplicates included', () => {
    const text = '{"id":12345678901234567890, "method":"a","method" : "b\\u0041","other":{"id":1}}';
    expect(watching.scan(Buffer.from(text))).toBe(true);
    expect(members(id!).map((member) => watching.memberToken(member))).toEqual(['12345678901234567890']);
    expect(watching.memberValueKind[members(id!)[0]!]).toBe(ValueKind.Number);
    expect(members(method!).map((member) => watching.memberString(member))).toEqual(['a', 'bA']);
    // Keys below an unwatched member are never recorded.
    expect(watching.memberCount).toBe(3);
  });

  it('records nested watched members and the objects they sit in', () => {
    const text =
      '{"params":{"cwd":"/x","clientCapabilities":{"fs":{"readTextFile":true,"other":1},"terminal":true},"deep":{"cwd":1}}}';
    expect(watching.scan(Buffer.from(text))).toBe(true);
    const [paramsMember] = members(params!);
    const paramsObject = watching.memberChildObject[paramsMember!]!;
    expect(watching.objectMembers[paramsObject]).toBe(3);
    expect(text[watching.objectClose[paramsObject]!]).toBe('}');
    expect(text.slice(watching.objectOpen[paramsObject]!, watching.objectClose[paramsObject]! + 1)).toBe(
      text.slice('{"params":'.length, -1),
    );
    const cwd = params!.children[0]!;
    const cwdMembers = members(cwd);
    expect(cwdMembers).toHaveLength(1);
    expect(watching.memberString(cwdMembers[0]!)).toBe('/x');
    const readTextFile = params!.children[1]!.children[0]!.children[0]!;
    const [read] = members(readTextFile);
    expect(text.slice(watching.memberValueStart[read!]!, watching.memberValueEnd[read!]!)).toBe('true');
  });

  it('matches escaped keys and leaves arrays unentered', () => {
    const text = '{"\\u0069d":"x","params":[{"cwd":"/y"}],"method":"m"}';
    expect(watching.scan(Buffer.from(text))).toBe(true);
    expect(members(id!).map((member) => watching.memberString(member))).toEqual(['x']);
    expect(watching.memberValueKind[members(params!)[0]!]).toBe(ValueKind.Array);
    expect(members(params!.children[0]!)).toEqual([]);
  });

  it('records container values of watched members with their end', () => {
    const text = `{"params":{"clientCapabilities":${'['.repeat(50)}${']'.repeat(50)}},"id":1}`;
    expect(watching.scan(Buffer.from(text))).toBe(true);
    const [capabilities] = members(params!.children[1]!);
    expect(
      text.slice(watching.memberValueStart[capabilities!]!, watching.memberValueEnd[capabilities!]!),
    ).toBe(`${'['.repeat(50)}${']'.repeat(50)}`);
  });
});

/** Every record a scan made, for comparing two scans of one frame. */
function recordsOf(scanner: FrameScanner) {
  const members = Array.from({ length: scanner.memberCount }, (_, member) => ({
    node: scanner.memberNode[member]!.id,
    object: scanner.memberObject[member],
    key: [scanner.memberKeyStart[member], scanner.memberKeyEnd[member], scanner.memberKeyEscaped[member]],
    value: [
      scanner.memberValueStart[member],
      scanner.memberValueEnd[member],
      scanner.memberValueKind[member],
      scanner.memberValueEscaped[member],
    ],
    child: scanner.memberChildObject[member],
  }));
  const objects = Array.from({ length: scanner.objectCount }, (_, object) => ({
    node: scanner.objectNode[object]!.id,
    braces: [scanner.objectOpen[object], scanner.objectClose[object]],
    members: scanner.objectMembers[object],
  }));
  return { topLevel: scanner.topLevel, lineBreaks: scanner.lineBreaks, members, objects };
}

describe('the WebAssembly scan against the JavaScript scan', () => {
  const watch: WatchNode = compileWatch({
    id: true,
    a: { b: true, id: { a: true } },
    params: { a: true, b: { a: { b: true } } },
  });
  const fast = new FrameScanner(watch, 'auto');
  const slow = new FrameScanner(watch, 'javascript');

  it('runs on the Node versions we support', () => {
    expect(frameScanModule).toBeDefined();
  });

  it('makes the same records, in the same order, for any frame (property)', () => {
    // Keys drawn from the watched names (escaped sometimes) so that watched members appear at every depth.
    const key = fc.constantFrom('id', 'a', 'b', 'params', 'c', '\\u0061', 'i\\u0064');
    const value: fc.Arbitrary<string> = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom('1', '-2.5e3', 'true', 'false', 'null', '"s"', '"\\n"', '"x\\u0041"'),
        fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
        fc
          .array(fc.tuple(key, tie('value')), { maxLength: 5 })
          .map((entries) => `{${entries.map(([name, item]) => `"${name}" : ${item}`).join(',\n')}}`),
      ),
    })).value;
    fc.assert(
      fc.property(value, (text) => {
        const bytes = Buffer.from(text);
        expect(fast.scan(bytes)).toBe(slow.scan(bytes));
        expect(recordsOf(fast)).toEqual(recordsOf(slow));
      }),
      { numRuns: 3_000 },
    );
  });

  it('scans a frame with more shallow members than the module records like the JavaScript scan', () => {
    const many = `{${Array.from({ length: 2_000 }, (_, index) => `"k${index}":{"a":${index}}`).join(',')},"id":7}`;
    expect(fast.scan(Buffer.from(many))).toBe(true);
    slow.scan(Buffer.from(many));
    expect(recordsOf(fast)).toEqual(recordsOf(slow));
    expect(fast.memberToken(fast.memberCount - 1)).toBe('7');
  });

  it('never reads past the frame: bytes left in its memory by a longer frame change nothing', () => {
    expect(fast.scan(Buffer.from('{"id":"0123456789abcdef0123456789","a":true}'))).toBe(true);
    for (const cut of ['{"id":"0123', '{"id":tr', '{"id":1', '{"id":"\\u00', '{"a":[1,2', '{"id":"x"} \n']) {
      expect(fast.scan(Buffer.from(cut))).toBe(slow.scan(Buffer.from(cut)));
    }
  });
});
