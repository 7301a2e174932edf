import { describe, expect, it } from 'vitest';
import { InvalidElicitationFallbackError } from './errors.js';
import { resolveFallbackResult } from './fallback.js';
import { ElicitationAccepted, ElicitationCancelled, ElicitationDeclined } from './results.js';

function fallbackError(run: () => unknown): InvalidElicitationFallbackError {
  try {
    run();
  } catch (error) {
    expect(InvalidElicitationFallbackError.isInstance(error)).toBe(true);
    return error as InvalidElicitationFallbackError;
  }
  throw new Error('expected an InvalidElicitationFallbackError');
}

describe('resolveFallbackResult', () => {
  it('returns a new accepted result holding the offered value, with source fallback', () => {
    const offered = { id: 'preview' };
    const choices = [{ value: offered, label: 'Preview' }];
    const fromFallback = new ElicitationAccepted(offered, 'client');
    const result = resolveFallbackResult(fromFallback, choices);
    expect(result).not.toBe(fromFallback);
    expect(result).toBeInstanceOf(ElicitationAccepted);
    expect(result).toMatchObject({ status: 'accepted', source: 'fallback' });
    expect((result as ElicitationAccepted<unknown>).value).toBe(offered);
  });

  it('matches with Object.is, so NaN matches NaN and -0 does not match 0', () => {
    const choices = [
      { value: Number.NaN, label: 'NaN' },
      { value: 0, label: 'Zero' },
    ];
    expect(resolveFallbackResult(new ElicitationAccepted(Number.NaN), choices)).toMatchObject({
      value: Number.NaN,
    });
    expect(fallbackError(() => resolveFallbackResult(new ElicitationAccepted(-0), choices)).code).toBe(
      'FALLBACK_VALUE_NOT_OFFERED',
    );
  });

  it('rejects an equal-but-distinct object without equals', () => {
    const choices = [{ value: { id: 1 }, label: 'One' }];
    const error = fallbackError(() => resolveFallbackResult(new ElicitationAccepted({ id: 1 }), choices));
    expect(error.code).toBe('FALLBACK_VALUE_NOT_OFFERED');
    expect(error.message).toBe('The accepted elicitation fallback value was not offered.');
    expect(error.value).toEqual({ id: 1 });
  });

  it('maps an equal-but-distinct object back to the offered one with equals', () => {
    const offered = { id: 2 };
    const choices = [
      { value: { id: 1 }, label: 'One' },
      { value: offered, label: 'Two' },
    ];
    const result = resolveFallbackResult(
      new ElicitationAccepted({ id: 2 }),
      choices,
      (a, b) => a.id === (b as { id: number }).id,
    );
    expect((result as ElicitationAccepted<unknown>).value).toBe(offered);
  });

  it('skips a choice whose equals throws and finds a later match', () => {
    const later = { id: 'later' };
    const choices = [
      { value: { id: 'explodes' }, label: 'Explodes' },
      { value: later, label: 'Later' },
    ];
    const equals = (offered: { id: string }, returned: unknown): boolean => {
      if (offered.id === 'explodes') throw new Error('cannot compare');
      return offered.id === (returned as { id: string }).id;
    };
    const result = resolveFallbackResult(new ElicitationAccepted({ id: 'later' }), choices, equals);
    expect((result as ElicitationAccepted<unknown>).value).toBe(later);
  });

  it('counts only an exact true from equals', () => {
    const choices = [{ value: 'a', label: 'A' }];
    const truthy = (() => 1) as unknown as (a: string, b: unknown) => boolean;
    expect(
      fallbackError(() => resolveFallbackResult(new ElicitationAccepted('b'), choices, truthy)).code,
    ).toBe('FALLBACK_VALUE_NOT_OFFERED');
  });

  it('takes the first matching choice in order', () => {
    const first = { tag: 'x', n: 1 };
    const second = { tag: 'x', n: 2 };
    const choices = [
      { value: first, label: 'First' },
      { value: second, label: 'Second' },
    ];
    const result = resolveFallbackResult(
      new ElicitationAccepted(second),
      choices,
      (a, b) => a.tag === (b as { tag: string }).tag,
    );
    // Per choice in order: the first choice matches by equals before the second's identity is tried.
    expect((result as ElicitationAccepted<unknown>).value).toBe(first);
  });

  it('accepts null and undefined when offered', () => {
    expect(
      resolveFallbackResult(new ElicitationAccepted(null), [{ value: null, label: 'None' }]),
    ).toMatchObject({
      value: null,
    });
    const result = resolveFallbackResult(new ElicitationAccepted(undefined), [
      { value: undefined, label: 'U' },
    ]);
    expect(result.status).toBe('accepted');
  });

  it('returns declined and cancelled as the same object', () => {
    const declined = new ElicitationDeclined();
    const cancelled = new ElicitationCancelled();
    expect(resolveFallbackResult(declined, [{ value: 'a', label: 'A' }])).toBe(declined);
    expect(resolveFallbackResult(cancelled, [{ value: 'a', label: 'A' }])).toBe(cancelled);
  });

  it.each([
    ['an offered plain value', 'a'],
    ['null', null],
    ['undefined', undefined],
    ['a lookalike object', { status: 'accepted', value: 'a' }],
  ])('rejects %s and names legacyFallback', (_name, value) => {
    const error = fallbackError(() => resolveFallbackResult(value, [{ value: 'a', label: 'A' }]));
    expect(error.code).toBe('FALLBACK_NOT_A_RESULT');
    expect(error.message).toContain('legacyFallback');
    expect(error.message).toContain('@acpkit/compat-1.6');
    expect(error.value).toBe(value);
  });
});
