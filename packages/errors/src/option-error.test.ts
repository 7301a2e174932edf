import { describe, expect, it, vi } from 'vitest';
import { AcpKitError, brandErrorClass } from './acp-kit-error.js';
import {
  invalidOption,
  isPlainObject,
  optionalBoolean,
  optionalFunction,
  optionalString,
  positiveInteger,
  requiredString,
} from './option-checks.js';
import { OptionError } from './option-error.js';

/** What a thrown check gave, or a failure when it did not throw. */
function thrown(run: () => unknown): OptionError {
  try {
    run();
  } catch (error) {
    if (OptionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an OptionError');
}

describe('OptionError', () => {
  it('names the option, what it allows and what it got as fields, with the stable code INVALID_OPTION', () => {
    const cause = new Error('root');
    const error = new OptionError('port', 'a port number', '-1', { label: 'server.port', cause });
    expect(error).toBeInstanceOf(AcpKitError);
    expect(error).toMatchObject({
      name: 'OptionError',
      code: 'INVALID_OPTION',
      option: 'port',
      expected: 'a port number',
      received: '-1',
      message: 'server.port must be a port number, got -1',
    });
    expect(error.cause).toBe(cause);
    expect(new OptionError('port', 'x', 'y')).not.toHaveProperty('cause');
  });

  it('is recognised across copies of the package', async () => {
    vi.resetModules();
    const other = await import('./option-error.js');
    const foreign = new other.OptionError('maxSteps', 'a positive integer', '0');
    expect(other.OptionError).not.toBe(OptionError);
    expect(OptionError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof OptionError).toBe(true);
    expect(OptionError.isInstance(new AcpKitError('INVALID_OPTION', 'bare'))).toBe(false);
  });

  it('joins a second family through brandErrorClass families: a package keeps its own family for its option errors', () => {
    class PackageError extends AcpKitError<'INVALID_OPTION' | 'OTHER'> {
      static override readonly isInstance = brandErrorClass(PackageError, 'acpkit.error.test-package');
      override readonly name: string = 'PackageError';
    }
    class PackageOptionError extends OptionError {
      static override readonly isInstance = brandErrorClass(
        PackageOptionError,
        'acpkit.error.test-package-option',
        { families: [PackageError] },
      );
      override readonly name: string = 'PackageOptionError';
    }
    const error = new PackageOptionError('bearerToken', 'visible ASCII', 'a blank string');
    expect(PackageError.isInstance(error)).toBe(true);
    expect(error instanceof PackageError).toBe(true);
    expect(OptionError.isInstance(error)).toBe(true);
    expect(PackageOptionError.isInstance(new OptionError('x', 'y', 'z'))).toBe(false);
    expect(PackageOptionError.isInstance(new PackageError('OTHER', 'x'))).toBe(false);
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    class Unbranded extends AcpKitError {}
    class Joining extends OptionError {}
    expect(() => brandErrorClass(Joining, 'acpkit.error.joining', { families: [Unbranded] })).toThrow(
      /not a branded error class/,
    );
  });
});

describe('option checks', () => {
  it('return the value or its default', () => {
    expect(requiredString('name', 'helper')).toBe('helper');
    expect(optionalString('title', undefined)).toBeUndefined();
    expect(optionalString('title', 'T')).toBe('T');
    expect(positiveInteger('maxSteps', undefined, 20)).toBe(20);
    expect(positiveInteger('maxSteps', 3, 20)).toBe(3);
    expect(optionalBoolean('image', undefined)).toBe(false);
    expect(optionalBoolean('image', true)).toBe(true);
    const hook = () => 1;
    expect(optionalFunction('hook', hook)).toBe(hook);
    expect(optionalFunction('hook', undefined)).toBeUndefined();
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject([])).toBe(false);
  });

  it.each([
    ['name', () => requiredString('name', '  '), 'a non-empty string', '"  "'],
    ['title', () => optionalString('title', 3), 'a string', '3'],
    ['maxSteps', () => positiveInteger('maxSteps', 0, 20), 'a positive integer', '0'],
    ['maxSteps', () => positiveInteger('maxSteps', 1.5, 20), 'a positive integer', '1.5'],
    ['maxSteps', () => positiveInteger('maxSteps', '20', 20), 'a positive integer', '"20"'],
    ['image', () => optionalBoolean('image', 'yes'), 'true or false', '"yes"'],
    ['hook', () => optionalFunction('hook', 1), 'a function', '1'],
    ['mode', () => invalidOption('mode', 'one of "ask"', 'plan'), 'one of "ask"', '"plan"'],
  ])('throw OptionError naming %s', (option, check, expected, received) => {
    const error = option === 'mode' ? (check() as OptionError) : thrown(check);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', option, expected, received });
  });

  it('name an entry inside an option by its label, keeping the option field', () => {
    const error = thrown(() => optionalBoolean('modelInputs', 1, { label: 'modelInputs.image' }));
    expect(error.option).toBe('modelInputs');
    expect(error.message).toBe('modelInputs.image must be true or false, got 1');
  });
});
