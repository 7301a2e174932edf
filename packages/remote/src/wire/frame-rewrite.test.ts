// Unit tests of the byte splices.
import { describe, expect, it } from 'vitest';
import { ByteSplice, setMember } from './frame-rewrite.js';
import { compileWatch, FrameScanner } from './frame-scan.js';

describe('ByteSplice', () => {
  it('replaces and inserts at byte positions, keeping every other byte and the order of inserts', () => {
    const bytes = Buffer.from('{"a":1.10,"b":2}');
    const splice = new ByteSplice();
    splice.insert(15, ',"c":3');
    splice.replace(14, 15, '"two"');
    splice.insert(15, ',"d":4');
    expect(splice.apply(bytes).toString()).toBe('{"a":1.10,"b":"two","c":3,"d":4}');
  });

  it('is empty until an edit is made', () => {
    expect(new ByteSplice().isEmpty).toBe(true);
  });
});

describe('setMember', () => {
  const watch = compileWatch({ params: { terminal: true } });
  const params = watch.children[0]!;
  const terminal = params.children[0]!;
  const scanner = new FrameScanner(watch);
  const set = (text: string) => {
    expect(scanner.scan(Buffer.from(text))).toBe(true);
    const splice = new ByteSplice();
    const object = scanner.memberChildObject[0]!;
    setMember(splice, scanner, object, terminal, 'false');
    return splice.isEmpty ? text : splice.apply(Buffer.from(text)).toString();
  };

  it('replaces every occurrence of the key (parsers differ on which duplicate wins)', () => {
    expect(set('{"params":{"terminal":true,"x":1,"terminal":{"a":[1]}}}')).toBe(
      '{"params":{"terminal":false,"x":1,"terminal":false}}',
    );
  });

  it('appends the member when it is missing, with a comma only after other members', () => {
    expect(set('{"params":{"x":1 }}')).toBe('{"params":{"x":1 ,"terminal":false}}');
    expect(set('{"params":{ }}')).toBe('{"params":{ "terminal":false}}');
  });

  it('leaves a value that already is the one to set alone', () => {
    expect(set('{"params":{"terminal":false}}')).toBe('{"params":{"terminal":false}}');
  });
});
