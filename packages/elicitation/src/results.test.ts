import { describe, expect, it } from 'vitest';
import {
  ElicitationAccepted,
  ElicitationCancelled,
  ElicitationDeclined,
  isElicitationResult,
} from './results.js';

describe('result variants', () => {
  it('carry a status discriminant and default to source fallback when built by user code', () => {
    const accepted = new ElicitationAccepted('preview');
    expect(accepted).toMatchObject({ status: 'accepted', value: 'preview', source: 'fallback' });
    expect(new ElicitationDeclined()).toMatchObject({ status: 'declined', source: 'fallback' });
    expect(new ElicitationCancelled()).toMatchObject({ status: 'cancelled', source: 'fallback' });
    expect(new ElicitationAccepted(1, 'client').source).toBe('client');
  });

  it('hold the value itself, not a copy', () => {
    const value = { id: 1 };
    expect(new ElicitationAccepted(value).value).toBe(value);
  });

  it('are frozen', () => {
    const accepted = new ElicitationAccepted('a');
    expect(Object.isFrozen(accepted)).toBe(true);
    expect(() => {
      (accepted as { value: string }).value = 'b';
    }).toThrow(TypeError);
  });

  it('are recognised by brand, never by shape', () => {
    const lookalikes = [
      { status: 'accepted', value: 'a', source: 'client' },
      { status: 'declined', source: 'client' },
      { status: 'cancelled', source: 'client' },
    ];
    for (const lookalike of lookalikes) {
      expect(isElicitationResult(lookalike)).toBe(false);
      expect(lookalike instanceof ElicitationAccepted).toBe(false);
      expect(ElicitationAccepted.isInstance(lookalike)).toBe(false);
      expect(ElicitationDeclined.isInstance(lookalike)).toBe(false);
      expect(ElicitationCancelled.isInstance(lookalike)).toBe(false);
    }
    expect(isElicitationResult(null)).toBe(false);
    expect(isElicitationResult('accepted')).toBe(false);
  });

  it('recognise results created by another copy of the package (same Symbol.for brand)', () => {
    const foreignAccepted = {
      status: 'accepted',
      value: 'a',
      [Symbol.for('acpkit.elicitation.choice-accepted')]: true,
    };
    const foreignDeclined = { status: 'declined', [Symbol.for('acpkit.elicitation.choice-declined')]: true };
    expect(ElicitationAccepted.isInstance(foreignAccepted)).toBe(true);
    expect(foreignAccepted instanceof ElicitationAccepted).toBe(true);
    expect(foreignDeclined instanceof ElicitationDeclined).toBe(true);
    expect(foreignDeclined instanceof ElicitationCancelled).toBe(false);
    expect(isElicitationResult(foreignDeclined)).toBe(true);
  });

  it('tell the variants apart', () => {
    const results = [new ElicitationAccepted(0), new ElicitationDeclined(), new ElicitationCancelled()];
    expect(results.map((result) => result instanceof ElicitationAccepted)).toEqual([true, false, false]);
    expect(results.map((result) => result instanceof ElicitationDeclined)).toEqual([false, true, false]);
    expect(results.map((result) => result instanceof ElicitationCancelled)).toEqual([false, false, true]);
    expect(results.every(isElicitationResult)).toBe(true);
  });

  it('keep an accepted value that looks like a result', () => {
    const tricky = { status: 'declined' };
    const accepted = new ElicitationAccepted(tricky);
    expect(accepted.status).toBe('accepted');
    expect(accepted.value).toBe(tricky);
  });
});
