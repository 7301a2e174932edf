import { describe, expect, it } from 'vitest';
import {
  ChoiceElicitationAccepted,
  ChoiceElicitationCancelled,
  ChoiceElicitationDeclined,
  isChoiceElicitationResult,
} from './results.js';

describe('result variants', () => {
  it('carry a status discriminant and default to source fallback when built by user code', () => {
    const accepted = new ChoiceElicitationAccepted('preview');
    expect(accepted).toMatchObject({ status: 'accepted', value: 'preview', source: 'fallback' });
    expect(new ChoiceElicitationDeclined()).toMatchObject({ status: 'declined', source: 'fallback' });
    expect(new ChoiceElicitationCancelled()).toMatchObject({ status: 'cancelled', source: 'fallback' });
    expect(new ChoiceElicitationAccepted(1, 'client').source).toBe('client');
  });

  it('hold the value itself, not a copy', () => {
    const value = { id: 1 };
    expect(new ChoiceElicitationAccepted(value).value).toBe(value);
  });

  it('are frozen', () => {
    const accepted = new ChoiceElicitationAccepted('a');
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
      expect(isChoiceElicitationResult(lookalike)).toBe(false);
      expect(lookalike instanceof ChoiceElicitationAccepted).toBe(false);
      expect(ChoiceElicitationAccepted.isInstance(lookalike)).toBe(false);
      expect(ChoiceElicitationDeclined.isInstance(lookalike)).toBe(false);
      expect(ChoiceElicitationCancelled.isInstance(lookalike)).toBe(false);
    }
    expect(isChoiceElicitationResult(null)).toBe(false);
    expect(isChoiceElicitationResult('accepted')).toBe(false);
  });

  it('recognise results created by another copy of the package (same Symbol.for brand)', () => {
    const foreignAccepted = {
      status: 'accepted',
      value: 'a',
      [Symbol.for('acpkit.elicitation.choice-accepted')]: true,
    };
    const foreignDeclined = { status: 'declined', [Symbol.for('acpkit.elicitation.choice-declined')]: true };
    expect(ChoiceElicitationAccepted.isInstance(foreignAccepted)).toBe(true);
    expect(foreignAccepted instanceof ChoiceElicitationAccepted).toBe(true);
    expect(foreignDeclined instanceof ChoiceElicitationDeclined).toBe(true);
    expect(foreignDeclined instanceof ChoiceElicitationCancelled).toBe(false);
    expect(isChoiceElicitationResult(foreignDeclined)).toBe(true);
  });

  it('tell the variants apart', () => {
    const results = [
      new ChoiceElicitationAccepted(0),
      new ChoiceElicitationDeclined(),
      new ChoiceElicitationCancelled(),
    ];
    expect(results.map((result) => result instanceof ChoiceElicitationAccepted)).toEqual([
      true,
      false,
      false,
    ]);
    expect(results.map((result) => result instanceof ChoiceElicitationDeclined)).toEqual([
      false,
      true,
      false,
    ]);
    expect(results.map((result) => result instanceof ChoiceElicitationCancelled)).toEqual([
      false,
      false,
      true,
    ]);
    expect(results.every(isChoiceElicitationResult)).toBe(true);
  });

  it('keep an accepted value that looks like a result', () => {
    const tricky = { status: 'declined' };
    const accepted = new ChoiceElicitationAccepted(tricky);
    expect(accepted.status).toBe('accepted');
    expect(accepted.value).toBe(tricky);
  });
});
