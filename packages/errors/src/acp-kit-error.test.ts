import { describe, expect, it, vi } from 'vitest';
import { AcpKitError, brandErrorClass } from './index.js';

type Errors = typeof import('./index.js');

/** One "package" of errors built on one copy of the root: a family base, a subclass, a sibling and an unbranded one. */
function defineFamily({ AcpKitError: Root, brandErrorClass: brandClass }: Errors) {
  class FamilyError<Code extends 'A' | 'B' = 'A' | 'B'> extends Root<Code> {
    static override readonly isInstance = brandClass(FamilyError, 'acpkit.error.test-family');
    override readonly name: string = 'FamilyError';
  }
  class SpecificError extends FamilyError<'A'> {
    static override readonly isInstance = brandClass(SpecificError, 'acpkit.error.test-specific');
    override readonly name: string = 'SpecificError';
    readonly detail: string;
    constructor(detail: string, options?: { cause?: unknown }) {
      super('A', `specific: ${detail}`, options);
      this.detail = detail;
    }
  }
  class SiblingError extends FamilyError {
    static override readonly isInstance = brandClass(SiblingError, 'acpkit.error.test-sibling');
    override readonly name: string = 'SiblingError';
  }
  class UnbrandedError extends FamilyError {}
  return { Root, FamilyError, SpecificError, SiblingError, UnbrandedError };
}

/** A second, independently evaluated copy of this package: what a user gets with two installed copies. */
async function anotherCopy(): Promise<Errors> {
  vi.resetModules();
  return import('./index.js');
}

describe('AcpKitError', () => {
  it('keeps code, message and cause, with a literal name', () => {
    const cause = new Error('root');
    const error = new AcpKitError('SOME_CODE', 'something failed', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'AcpKitError', code: 'SOME_CODE', message: 'something failed' });
    expect(error.cause).toBe(cause);
    expect(new AcpKitError('SOME_CODE', 'no cause')).not.toHaveProperty('cause');
  });

  it('carries the Symbol.for("acpkit.error") marker on the prototype, never on the instance', () => {
    const error = new AcpKitError('SOME_CODE', 'x');
    expect(Symbol.for('acpkit.error') in error).toBe(true);
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(JSON.stringify(error)).not.toContain('acpkit');
    expect(Object.keys(error)).toEqual(['name', 'code']);
  });

  it('recognises the marker whoever set it, and nothing else', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('acpkit.error')]: true });
    expect(AcpKitError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof AcpKitError).toBe(true);
    for (const value of [null, undefined, 'AcpKitError', 42, new Error('plain'), { name: 'AcpKitError' }]) {
      expect(AcpKitError.isInstance(value)).toBe(false);
      expect(value instanceof AcpKitError).toBe(false);
    }
  });
});

describe('brandErrorClass', () => {
  it('gives each subclass its own marker and isInstance, inherited markers included', async () => {
    const { Root, FamilyError, SpecificError, SiblingError } = defineFamily(await anotherCopy());
    const specific = new SpecificError('d');
    expect(Symbol.for('acpkit.error.test-specific') in specific).toBe(true);
    expect(Symbol.for('acpkit.error.test-family') in specific).toBe(true);
    expect(Symbol.for('acpkit.error') in specific).toBe(true);
    expect(Object.getOwnPropertySymbols(specific)).toEqual([]);
    expect(Root.isInstance(specific)).toBe(true);
    expect(FamilyError.isInstance(specific)).toBe(true);
    expect(SpecificError.isInstance(specific)).toBe(true);
    expect(SiblingError.isInstance(specific)).toBe(false);
    // A base error is not one of its subclasses.
    const base = new FamilyError('B', 'x');
    expect(SpecificError.isInstance(base)).toBe(false);
    expect(base instanceof SpecificError).toBe(false);
  });

  it('returns an isInstance that needs no this: errors.filter(X.isInstance) works unbound', async () => {
    const { FamilyError, SpecificError, SiblingError } = defineFamily(await anotherCopy());
    const errors: unknown[] = [
      new SpecificError('one'),
      new SiblingError('B', 'two'),
      new Error('three'),
      new AcpKitError('OTHER', 'four'),
    ];
    expect(errors.filter(SpecificError.isInstance).map((error) => error.detail)).toEqual(['one']);
    expect(errors.filter(FamilyError.isInstance)).toHaveLength(2);
    const { isInstance } = SiblingError;
    expect(errors.filter((error) => isInstance(error))).toHaveLength(1);
  });

  it('keeps code, cause and name through subclasses', async () => {
    const { SpecificError } = defineFamily(await anotherCopy());
    const cause = new Error('root');
    const error = new SpecificError('d', { cause });
    expect(error).toMatchObject({ name: 'SpecificError', code: 'A', message: 'specific: d', detail: 'd' });
    expect(error.cause).toBe(cause);
  });

  it('makes instanceof and isInstance agree across two copies of the package, by each class and its bases only', async () => {
    const first = defineFamily(await anotherCopy());
    const second = defineFamily(await anotherCopy());
    expect(first.Root).not.toBe(second.Root);
    const errors = {
      FamilyError: new first.FamilyError('A', 'x'),
      SpecificError: new first.SpecificError('x'),
      SiblingError: new first.SiblingError('B', 'x'),
    };
    const classes = {
      Root: second.Root,
      FamilyError: second.FamilyError,
      SpecificError: second.SpecificError,
      SiblingError: second.SiblingError,
    };
    for (const [name, error] of Object.entries(errors)) {
      for (const [className, errorClass] of Object.entries(classes)) {
        const expected = className === 'Root' || className === 'FamilyError' || className === name;
        expect(error instanceof errorClass, `${name} instanceof ${className}`).toBe(expected);
        expect(errorClass.isInstance(error), `${className}.isInstance(${name})`).toBe(expected);
      }
    }
    // The root of this module recognises what the other copy's subclasses create.
    expect(AcpKitError.isInstance(errors.SpecificError)).toBe(true);
    expect(errors.SpecificError instanceof AcpKitError).toBe(true);
  });

  it('leaves a subclass nobody branded with plain instanceof semantics for itself', async () => {
    const first = defineFamily(await anotherCopy());
    const second = defineFamily(await anotherCopy());
    const unbranded = new first.UnbrandedError('A', 'x');
    expect(unbranded instanceof first.UnbrandedError).toBe(true);
    expect(new first.FamilyError('A', 'x') instanceof first.UnbrandedError).toBe(false);
    // Another copy's unbranded class is another class: without a marker there is nothing to recognise.
    expect(unbranded instanceof second.UnbrandedError).toBe(false);
    expect(unbranded instanceof second.FamilyError).toBe(true);
    // Its isInstance is its base's (it declared none): true for every family error, as the type says.
    expect(first.UnbrandedError.isInstance(new first.FamilyError('A', 'x'))).toBe(true);
  });

  it('keeps markers out of enumeration, logs and JSON', async () => {
    const { SpecificError } = defineFamily(await anotherCopy());
    expect(Object.getOwnPropertySymbols(SpecificError.prototype)).toContain(
      Symbol.for('acpkit.error.test-specific'),
    );
    expect(Object.keys(SpecificError.prototype)).toEqual([]);
    expect(JSON.stringify(new SpecificError('d'))).toBe('{"name":"SpecificError","code":"A","detail":"d"}');
  });
});

describe('the @example of brandErrorClass', () => {
  it('works as written', () => {
    const QuotaErrorCode = { QuotaExceeded: 'QUOTA_EXCEEDED' } as const;
    type QuotaErrorCode = (typeof QuotaErrorCode)[keyof typeof QuotaErrorCode];
    class QuotaError extends AcpKitError<QuotaErrorCode> {
      static override readonly isInstance = brandErrorClass(QuotaError, 'acpkit.error.quota');
      override readonly name: string = 'QuotaError';
    }
    const error = new QuotaError(QuotaErrorCode.QuotaExceeded, 'Quota exceeded: try again in 60 s');
    expect(QuotaError.isInstance(error)).toBe(true);
    expect(AcpKitError.isInstance(error)).toBe(true);
    expect(error instanceof QuotaError).toBe(true);
  });
});
