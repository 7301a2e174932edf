import { AcpKitError } from '@acpkit/choice-schema';
import { describe, expect, it, vi } from 'vitest';
import {
  ClientCapabilitiesNotRecordedError,
  ElicitationConnectionClosedError,
  ElicitationErrorCode,
  ElicitationScopeError,
  ElicitationUnsupportedError,
  InvalidElicitationFallbackError,
} from './errors.js';

/** A second, independently evaluated copy of this module (and of `@acpkit/choice-schema` below it). */
async function anotherCopy() {
  vi.resetModules();
  const [errors, choiceSchema] = await Promise.all([import('./errors.js'), import('@acpkit/choice-schema')]);
  return { ...errors, AcpKitError: choiceSchema.AcpKitError };
}

function oneOfEach(errors: typeof import('./errors.js'), cause: unknown) {
  return {
    ElicitationUnsupportedError: new errors.ElicitationUnsupportedError('form', { cause }),
    InvalidElicitationFallbackError: new errors.InvalidElicitationFallbackError(
      'FALLBACK_NOT_A_RESULT',
      'not a result',
      'plain',
      { cause },
    ),
    ElicitationScopeError: new errors.ElicitationScopeError('other-session', 'this-session'),
    ElicitationConnectionClosedError: new errors.ElicitationConnectionClosedError({ cause }),
    ClientCapabilitiesNotRecordedError: new errors.ClientCapabilitiesNotRecordedError('form'),
  };
}

const classes = {
  ElicitationUnsupportedError,
  InvalidElicitationFallbackError,
  ElicitationScopeError,
  ElicitationConnectionClosedError,
  ClientCapabilitiesNotRecordedError,
};

const markers = {
  ElicitationUnsupportedError: 'acpkit.error.elicitation-unsupported',
  InvalidElicitationFallbackError: 'acpkit.error.invalid-elicitation-fallback',
  ElicitationScopeError: 'acpkit.error.elicitation-scope',
  ElicitationConnectionClosedError: 'acpkit.error.elicitation-connection-closed',
  ClientCapabilitiesNotRecordedError: 'acpkit.error.client-capabilities-not-recorded',
};

describe('elicitation errors', () => {
  it('are AcpKitErrors with a literal name, a stable code, cause kept and their own acpkit.error.* marker', () => {
    const cause = new Error('root');
    for (const [name, error] of Object.entries(oneOfEach({ ...classes, ElicitationErrorCode }, cause))) {
      expect(error.name).toBe(name);
      expect(Object.values(ElicitationErrorCode)).toContain(error.code);
      // These two take no cause: nothing underlies a scope mismatch or a missing initialize wrapper.
      if (name !== 'ElicitationScopeError' && name !== 'ClientCapabilitiesNotRecordedError') {
        expect(error.cause).toBe(cause);
      }
      expect(AcpKitError.isInstance(error)).toBe(true);
      expect(error instanceof AcpKitError).toBe(true);
      expect(Symbol.for(markers[name as keyof typeof markers]) in error).toBe(true);
    }
  });

  it('are recognised by instanceof and isInstance across two copies of the packages, by their own class and its bases only', async () => {
    const other = await anotherCopy();
    expect(other.ElicitationUnsupportedError).not.toBe(ElicitationUnsupportedError);
    expect(other.AcpKitError).not.toBe(AcpKitError);
    const created = oneOfEach(other, new Error('root'));
    for (const [name, error] of Object.entries(created)) {
      for (const [candidateName, candidate] of Object.entries(classes)) {
        // ClientCapabilitiesNotRecordedError is an ElicitationUnsupportedError (issue 19 item 8).
        const expected =
          name === candidateName ||
          (name === 'ClientCapabilitiesNotRecordedError' && candidateName === 'ElicitationUnsupportedError');
        expect(error instanceof candidate, `${name} instanceof ${candidateName}`).toBe(expected);
        expect(candidate.isInstance(error), `${candidateName}.isInstance(${name})`).toBe(expected);
      }
      expect(error instanceof AcpKitError).toBe(true);
    }
  });
});
