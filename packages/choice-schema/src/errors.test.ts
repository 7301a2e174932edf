import { AcpKitError } from '@acpkit/errors';
import { describe, expect, it, vi } from 'vitest';
import { ChoiceValidationError, InvalidElicitationResponseError } from './errors.js';

/** A second, independently evaluated copy of this module and of the root: what two installed copies give a user. */
async function anotherCopy() {
  vi.resetModules();
  const [errors, root] = await Promise.all([import('./errors.js'), import('@acpkit/errors')]);
  return { ...errors, AcpKitError: root.AcpKitError };
}

describe('AcpKitError', () => {
  it('keeps code, message and cause', () => {
    const cause = new Error('root');
    const error = new AcpKitError('SOME_CODE', 'something failed', { cause });
    expect(error.code).toBe('SOME_CODE');
    expect(error.message).toBe('something failed');
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('AcpKitError');
    expect(error).toBeInstanceOf(Error);
  });

  it('recognises errors by the Symbol.for marker, also from another copy of the package', () => {
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('acpkit.error')]: true,
      [Symbol.for('acpkit.error.choice-validation')]: true,
    });
    expect(AcpKitError.isInstance(foreign)).toBe(true);
    expect(ChoiceValidationError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof ChoiceValidationError).toBe(true);
    expect(InvalidElicitationResponseError.isInstance(foreign)).toBe(false);
    expect(AcpKitError.isInstance(new Error('plain'))).toBe(false);
    expect(AcpKitError.isInstance(null)).toBe(false);
    expect(AcpKitError.isInstance('AcpKitError')).toBe(false);
  });

  it('gives subclasses their own name and marker', () => {
    const validation = new ChoiceValidationError('BLANK_QUESTION', 'question must not be blank');
    const response = new InvalidElicitationResponseError('INVALID_CHOICE', 'bad', { action: 'accept' });
    expect(validation.name).toBe('ChoiceValidationError');
    expect(response.name).toBe('InvalidElicitationResponseError');
    expect(AcpKitError.isInstance(validation)).toBe(true);
    expect(InvalidElicitationResponseError.isInstance(validation)).toBe(false);
    expect(ChoiceValidationError.isInstance(response)).toBe(false);
    expect(response.response).toEqual({ action: 'accept' });
    expect(Symbol.for('acpkit.error.choice-validation') in validation).toBe(true);
    expect(Symbol.for('acpkit.error.invalid-elicitation-response') in response).toBe(true);
  });

  it('makes instanceof work across two copies of the package, each class checking its own marker', async () => {
    const other = await anotherCopy();
    expect(other.ChoiceValidationError).not.toBe(ChoiceValidationError);
    const cause = new Error('root');
    const validation = new other.ChoiceValidationError('EMPTY_CHOICES', 'choices must not be empty', {
      cause,
    });
    expect(validation instanceof ChoiceValidationError).toBe(true);
    expect(validation instanceof AcpKitError).toBe(true);
    expect(validation instanceof InvalidElicitationResponseError).toBe(false);
    expect(ChoiceValidationError.isInstance(validation)).toBe(true);
    expect([validation.name, validation.code, validation.cause]).toEqual([
      'ChoiceValidationError',
      'EMPTY_CHOICES',
      cause,
    ]);
    expect(new other.AcpKitError('X', 'base') instanceof ChoiceValidationError).toBe(false);
    expect(new AcpKitError('X', 'base') instanceof other.AcpKitError).toBe(true);
  });

  it('keeps the markers out of the instance, its keys and its JSON', () => {
    const error = new ChoiceValidationError('BLANK_LABEL', 'choice labels must not be blank');
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(JSON.stringify(error)).not.toContain('acpkit');
  });
});

describe('InvalidElicitationResponseError', () => {
  it('keeps the raw content and the issues, and defaults issues to none', () => {
    const response = { action: 'accept', content: { replicas: 9 } };
    const issues = [{ code: 'too_big', path: ['replicas'], message: 'Too big' }];
    const withIssues = new InvalidElicitationResponseError('INVALID_CONTENT', 'bad content', response, {
      issues,
    });
    expect(withIssues.content).toBe(response.content);
    expect(withIssues.issues).toBe(issues);
    const withoutIssues = new InvalidElicitationResponseError('UNSUPPORTED_ACTION', 'bad', 'not an object');
    expect(withoutIssues.issues).toEqual([]);
    expect(withoutIssues.content).toBeUndefined();
  });
});
