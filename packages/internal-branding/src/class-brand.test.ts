import { describe, expect, it, vi } from 'vitest';

type Branding = typeof import('./class-brand.js');

/** One "copy of a package": a family base, a subclass and an unbranded user subclass, built on one copy of branding. */
function defineFamily({ brandErrorClass, isBrandedInstance }: Branding) {
  class FamilyError extends Error {
    static {
      brandErrorClass(FamilyError, 'acpkit.error.test-family');
    }
    override readonly name: string = 'FamilyError';
    static isInstance(value: unknown): value is FamilyError {
      return isBrandedInstance(FamilyError, value);
    }
    static override [Symbol.hasInstance](value: unknown): boolean {
      // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof, a subclass too
      return isBrandedInstance(this, value);
    }
  }
  class SpecificError extends FamilyError {
    static {
      brandErrorClass(SpecificError, 'acpkit.error.test-specific');
    }
    override readonly name: string = 'SpecificError';
    static override isInstance(value: unknown): value is SpecificError {
      return isBrandedInstance(SpecificError, value);
    }
  }
  class OtherError extends FamilyError {
    static {
      brandErrorClass(OtherError, 'acpkit.error.test-other');
    }
  }
  class UnbrandedError extends FamilyError {}
  return { FamilyError, SpecificError, OtherError, UnbrandedError };
}

async function freshBranding(): Promise<Branding> {
  vi.resetModules();
  return import('./class-brand.js');
}

describe('brandErrorClass / isBrandedInstance', () => {
  it('puts a non-enumerable Symbol.for marker on the prototype, so instances never show it', async () => {
    const { SpecificError } = defineFamily(await freshBranding());
    const error = new SpecificError('x');
    expect(Symbol.for('acpkit.error.test-specific') in error).toBe(true);
    expect(Symbol.for('acpkit.error.test-family') in error).toBe(true);
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(JSON.stringify(error)).not.toContain('acpkit');
  });

  it('makes instanceof and isInstance agree across two copies of the code', async () => {
    const first = defineFamily(await freshBranding());
    const second = defineFamily(await freshBranding());
    expect(first.FamilyError).not.toBe(second.FamilyError);
    const specific = new first.SpecificError('x');
    expect(specific instanceof second.SpecificError).toBe(true);
    expect(specific instanceof second.FamilyError).toBe(true);
    expect(specific instanceof second.OtherError).toBe(false);
    expect(second.SpecificError.isInstance(specific)).toBe(true);
    expect(second.FamilyError.isInstance(specific)).toBe(true);
    expect(specific instanceof Error).toBe(true);
  });

  it('checks each class against its own marker, not the one it inherits', async () => {
    const { FamilyError, SpecificError, OtherError } = defineFamily(await freshBranding());
    const base = new FamilyError('x');
    expect(base instanceof SpecificError).toBe(false);
    expect(SpecificError.isInstance(base)).toBe(false);
    expect(new OtherError('x') instanceof SpecificError).toBe(false);
    expect(new SpecificError('x') instanceof OtherError).toBe(false);
  });

  it('falls back to plain instanceof for a subclass nobody branded', async () => {
    const first = defineFamily(await freshBranding());
    const second = defineFamily(await freshBranding());
    const unbranded = new first.UnbrandedError('x');
    expect(unbranded instanceof first.UnbrandedError).toBe(true);
    expect(new first.FamilyError('x') instanceof first.UnbrandedError).toBe(false);
    // Another copy's unbranded class is another class: without a marker there is nothing to recognise.
    expect(unbranded instanceof second.UnbrandedError).toBe(false);
    expect(unbranded instanceof second.FamilyError).toBe(true);
  });

  it('recognises nothing that is not an object carrying the marker', async () => {
    const { FamilyError } = defineFamily(await freshBranding());
    for (const value of [null, undefined, 'FamilyError', 42, new Error('plain'), { name: 'FamilyError' }]) {
      expect(FamilyError.isInstance(value)).toBe(false);
      expect(value instanceof FamilyError).toBe(false);
    }
  });
});
