import { AcpKitError } from '@acpkit/errors';
import { describe, expect, it } from 'vitest';
import { InvalidElicitationResponseError } from './errors.js';
import { choiceIndexOf, parseChoiceResponse, parseElicitationAction } from './parse-choice.js';

const choices = [{ label: 'Preview' }, { label: 'Production' }] as const;

function parseError(response: unknown): InvalidElicitationResponseError {
  try {
    parseChoiceResponse(response, choices);
  } catch (error) {
    expect(InvalidElicitationResponseError.isInstance(error)).toBe(true);
    expect(AcpKitError.isInstance(error)).toBe(true);
    return error as InvalidElicitationResponseError;
  }
  throw new Error('expected an InvalidElicitationResponseError');
}

describe('parseChoiceResponse', () => {
  it('maps a valid accept to the choice with that index, ignoring other content keys', () => {
    const parsed = parseChoiceResponse(
      { action: 'accept', content: { choice: 'choice_1', note: 'extra' }, _meta: { x: 1 } },
      choices,
    );
    expect(parsed).toEqual({ status: 'accepted', index: 1, choice: choices[1] });
    if (parsed.status === 'accepted') expect(parsed.choice).toBe(choices[1]);
  });

  it('accepts choice_0', () => {
    expect(parseChoiceResponse({ action: 'accept', content: { choice: 'choice_0' } }, choices)).toMatchObject(
      {
        status: 'accepted',
        index: 0,
      },
    );
  });

  it('maps decline and cancel, ignoring extra keys', () => {
    expect(parseChoiceResponse({ action: 'decline', content: { choice: 'choice_0' } }, choices)).toEqual({
      status: 'declined',
    });
    expect(parseChoiceResponse({ action: 'cancel' }, choices)).toEqual({ status: 'cancelled' });
  });

  it.each([
    ['content missing', { action: 'accept' }],
    ['content null', { action: 'accept', content: null }],
    ['content a string', { action: 'accept', content: 'choice_0' }],
    ['content an array', { action: 'accept', content: ['choice_0'] }],
    ['choice missing', { action: 'accept', content: {} }],
    ['choice a number', { action: 'accept', content: { choice: 1 } }],
    ['choice an object', { action: 'accept', content: { choice: { deep: 1 } } }],
    ['unknown token', { action: 'accept', content: { choice: 'unknown' } }],
    ['non-numeric suffix', { action: 'accept', content: { choice: 'choice_nope' } }],
    ['out of range', { action: 'accept', content: { choice: 'choice_9' } }],
    ['index equal to the count', { action: 'accept', content: { choice: 'choice_2' } }],
    ['zero padded', { action: 'accept', content: { choice: 'choice_01' } }],
    ['superscript digit', { action: 'accept', content: { choice: 'choice_²' } }],
    ['circled digit', { action: 'accept', content: { choice: 'choice_①' } }],
    ['fullwidth digit', { action: 'accept', content: { choice: 'choice_１' } }],
    ['leading space', { action: 'accept', content: { choice: ' choice_0' } }],
    ['trailing newline', { action: 'accept', content: { choice: 'choice_0\n' } }],
    ['negative', { action: 'accept', content: { choice: 'choice_-1' } }],
    ['huge index', { action: 'accept', content: { choice: 'choice_99999999999999999999' } }],
    ['label instead of token', { action: 'accept', content: { choice: 'Preview' } }],
  ])('rejects an accept with %s', (_name, response) => {
    const error = parseError(response);
    expect(error.code).toBe('INVALID_CHOICE');
    expect(error.message).toBe('The ACP client accepted the elicitation without a valid choice.');
    expect(error.response).toBe(response);
  });

  it('never lets the schema default rescue a bad accept', () => {
    // The default token is valid, but the client did not send it.
    const error = parseError({ action: 'accept', content: { choice: '' } });
    expect(error.code).toBe('INVALID_CHOICE');
  });

  it.each([
    ['_custom', { action: '_custom', foo: 1 }, "'_custom'"],
    ['maybe', { action: 'maybe' }, "'maybe'"],
    ['ACCEPT in capitals', { action: 'ACCEPT', content: { choice: 'choice_0' } }, "'ACCEPT'"],
    ['no action', {}, "'undefined'"],
    ['a numeric action', { action: 7 }, "'7'"],
  ])('rejects the action %s as unsupported', (_name, response, quoted) => {
    const error = parseError(response);
    expect(error.code).toBe('UNSUPPORTED_ACTION');
    expect(error.message).toBe(`The ACP client returned an unsupported elicitation action: ${quoted}.`);
    expect(error.response).toBe(response);
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'accept'],
    ['a number', 1],
    ['an array', [{ action: 'accept', content: { choice: 'choice_0' } }]],
  ])('rejects a response that is %s', (_name, response) => {
    const error = parseError(response);
    expect(error.code).toBe('UNSUPPORTED_ACTION');
    expect(error.message).toBe("The ACP client returned an unsupported elicitation action: 'undefined'.");
    expect(error.response).toBe(response);
  });

  it('truncates a very long action in the message', () => {
    const error = parseError({ action: `_${'x'.repeat(500)}` });
    expect(error.message.length).toBeLessThan(200);
    expect(error.message).toContain('…');
  });
});

describe('choiceIndexOf', () => {
  it('returns the index of an issued token and undefined otherwise', () => {
    expect(choiceIndexOf('choice_0', 1)).toBe(0);
    expect(choiceIndexOf('choice_10', 11)).toBe(10);
    expect(choiceIndexOf('choice_10', 10)).toBeUndefined();
    expect(choiceIndexOf('choice_00', 5)).toBeUndefined();
    expect(choiceIndexOf(0, 5)).toBeUndefined();
  });
});

describe('parseElicitationAction', () => {
  it('returns accept with the raw content, also when content is absent or not an object', () => {
    expect(parseElicitationAction({ action: 'accept', content: { a: 1 } })).toEqual({
      action: 'accept',
      content: { a: 1 },
    });
    expect(parseElicitationAction({ action: 'accept' })).toEqual({ action: 'accept', content: undefined });
    expect(parseElicitationAction({ action: 'accept', content: 'x' })).toEqual({
      action: 'accept',
      content: 'x',
    });
  });

  it('maps decline and cancel and refuses every other action with UNSUPPORTED_ACTION', () => {
    expect(parseElicitationAction({ action: 'decline', content: {} })).toEqual({ action: 'decline' });
    expect(parseElicitationAction({ action: 'cancel' })).toEqual({ action: 'cancel' });
    for (const response of [{ action: '_later' }, { action: 'ACCEPT' }, null, 'accept', [], {}]) {
      expect(() => parseElicitationAction(response)).toThrow(
        expect.objectContaining({ code: 'UNSUPPORTED_ACTION', response }),
      );
    }
  });
});
