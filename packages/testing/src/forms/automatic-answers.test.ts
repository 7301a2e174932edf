import { describe, expect, it } from 'vitest';
import {
  answerFormAutomatically,
  choosePermissionAutomatically,
  describeValue,
} from './automatic-answers.js';
import { readForm } from './form-model.js';

describe('answerFormAutomatically', () => {
  it('takes defaults, else the first option, and says where each answer came from', () => {
    const answer = answerFormAutomatically(
      readForm({
        required: ['target', 'flavour', 'agree', 'tags'],
        properties: {
          target: {
            type: 'string',
            default: 'b',
            oneOf: [
              { const: 'a', title: 'A' },
              { const: 'b', title: 'B' },
            ],
          },
          flavour: { type: 'string', enum: ['vanilla', 'chocolate'] },
          agree: { type: 'boolean' },
          tags: { type: 'array', minItems: 2, items: { enum: ['x', 'y', 'z'] } },
          note: { type: 'string' },
          count: { type: 'integer', default: 4 },
        },
      }),
    );
    expect(answer).toMatchObject({
      action: 'accept',
      content: { target: 'b', flavour: 'vanilla', agree: false, tags: ['x', 'y'], count: 4 },
    });
    if (answer.action !== 'accept') throw new Error('expected accept');
    expect(answer.answers.map((entry) => [entry.field.name, entry.source])).toEqual([
      ['target', 'default'],
      ['flavour', 'first option'],
      ['agree', 'no'],
      ['tags', 'first options'],
      ['note', 'left empty'],
      ['count', 'default'],
    ]);
    expect('note' in answer.content).toBe(false);
  });

  it('declines when a required field has no default, or a default breaks the schema', () => {
    expect(
      answerFormAutomatically(readForm({ required: ['name'], properties: { name: { type: 'string' } } })),
    ).toEqual({
      action: 'decline',
      reason: 'name is required and has no default',
    });
    expect(
      answerFormAutomatically(
        readForm({ properties: { name: { type: 'string', minLength: 5, default: 'abc' } } }),
      ),
    ).toEqual({ action: 'decline', reason: 'the default for name is invalid: Enter at least 5 characters.' });
    expect(
      answerFormAutomatically(readForm({ required: ['w'], properties: { w: { type: '_vendor_widget' } } })),
    ).toMatchObject({ action: 'decline' });
    expect(
      answerFormAutomatically(readForm({ required: ['c'], properties: { c: { type: 'string', enum: [] } } })),
    ).toEqual({ action: 'decline', reason: 'c offers no options' });
  });
});

describe('choosePermissionAutomatically', () => {
  it('prefers allow once, then allow always, then the first option', () => {
    const reject = { optionId: 'r', name: 'Reject', kind: 'reject_once' as const };
    const always = { optionId: 'aa', name: 'Always', kind: 'allow_always' as const };
    const once = { optionId: 'a', name: 'Once', kind: 'allow_once' as const };
    expect(choosePermissionAutomatically([reject, always, once])).toBe(once);
    expect(choosePermissionAutomatically([reject, always])).toBe(always);
    expect(choosePermissionAutomatically([reject])).toBe(reject);
    expect(choosePermissionAutomatically([])).toBeUndefined();
  });
});

describe('describeValue', () => {
  it('renders choices by their labels (never the tokens), lists, booleans and empties', () => {
    const [choice, tags, flag] = readForm({
      properties: {
        target: { type: 'string', oneOf: [{ const: 'choice_1', title: 'Production' }] },
        tags: {
          type: 'array',
          items: {
            anyOf: [
              { const: 'choice_0', title: 'Stable' },
              { const: 'choice_1', title: 'Beta' },
            ],
          },
        },
        flag: { type: 'boolean' },
      },
    }).fields;
    expect(describeValue(choice!, 'choice_1')).toBe('Production');
    expect(describeValue(tags!, ['choice_0', 'choice_1'])).toBe('Stable, Beta');
    expect(describeValue(tags!, [])).toBe('(none)');
    expect(describeValue(flag!, true)).toBe('yes');
    expect(describeValue(flag!, undefined)).toBe('(left empty)');
  });
});
