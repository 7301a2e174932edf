import { describe, expectTypeOf, it } from 'vitest';
import { AcpKitError, type AcpKitErrorMarker, brandErrorClass } from './index.js';

const FamilyErrorCode = { First: 'FIRST', Second: 'SECOND' } as const;
type FamilyErrorCode = (typeof FamilyErrorCode)[keyof typeof FamilyErrorCode];

class FamilyError<Code extends FamilyErrorCode = FamilyErrorCode> extends AcpKitError<Code> {
  static override readonly isInstance = brandErrorClass(FamilyError, 'acpkit.error.type-family');
  override readonly name: string = 'FamilyError';
}

class DetailedError extends FamilyError<'FIRST'> {
  static override readonly isInstance = brandErrorClass(DetailedError, 'acpkit.error.type-detailed');
  override readonly name: string = 'DetailedError';
  readonly detail: number;
  constructor(detail: number) {
    super('FIRST', 'detailed');
    this.detail = detail;
  }
}

describe('AcpKitError types', () => {
  it('types code by the class parameter, string by default', () => {
    expectTypeOf<AcpKitError['code']>().toEqualTypeOf<string>();
    expectTypeOf(new AcpKitError('ANY', 'x').code).toEqualTypeOf<'ANY'>();
    expectTypeOf(new AcpKitError<'ONLY'>('ONLY', 'x').code).toEqualTypeOf<'ONLY'>();
    expectTypeOf(new FamilyError('SECOND', 'x').code).toEqualTypeOf<'SECOND'>();
    // @ts-expect-error a code the family does not have
    new FamilyError('THIRD', 'x');
  });

  it('narrows with isInstance to the class itself, with its default code union', () => {
    expectTypeOf(AcpKitError.isInstance).guards.toEqualTypeOf<AcpKitError>();
    expectTypeOf(FamilyError.isInstance).guards.toEqualTypeOf<FamilyError>();
    expectTypeOf(DetailedError.isInstance).guards.toEqualTypeOf<DetailedError>();
    const value: unknown = undefined;
    if (DetailedError.isInstance(value)) {
      expectTypeOf(value.detail).toEqualTypeOf<number>();
      expectTypeOf(value.code).toEqualTypeOf<'FIRST'>();
    }
    if (FamilyError.isInstance(value)) expectTypeOf(value.code).toEqualTypeOf<FamilyErrorCode>();
  });

  it('keeps the narrowing when isInstance is passed unbound', () => {
    const errors: unknown[] = [];
    expectTypeOf(errors.filter(DetailedError.isInstance)).toEqualTypeOf<DetailedError[]>();
    expectTypeOf(errors.filter(AcpKitError.isInstance)).toEqualTypeOf<AcpKitError[]>();
  });

  it('brands only AcpKitError subclasses, with a marker in the acpkit.error. namespace', () => {
    class NotOurs extends Error {}
    // @ts-expect-error not an AcpKitError
    brandErrorClass(NotOurs, 'acpkit.error.not-ours');
    // @ts-expect-error outside the namespace
    brandErrorClass(DetailedError, 'my.error');
    // @ts-expect-error the root's own marker is taken
    brandErrorClass(DetailedError, 'acpkit.error');
    expectTypeOf<'acpkit.error' | 'acpkit.error.remote'>().toExtend<AcpKitErrorMarker>();
  });
});
