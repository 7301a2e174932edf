import { compileChoiceElicitation } from '@acpkit/choice-schema';
import { describe, expect, it } from 'vitest';
import { ScriptedAnswerError, TestingErrorCode } from '../errors.js';
import {
  answerFormWithScript,
  FormScriptQueue,
  type FormScriptsByTitle,
  formScriptSource,
  parseAnswerAssignments,
  parseFormScripts,
  type ScriptedForm,
} from './scripted-answers.js';

/** The deploy-target question as `askChoice` compiles it: opaque tokens, field `choice` titled `Choice`. */
const deployTarget: ScriptedForm = compileChoiceElicitation({
  sessionId: 's',
  question: 'Choose a deployment target',
  choices: [{ label: 'Preview' }, { label: 'Production', default: true }],
});

/** One field of every kind the terminal client renders. */
const release: ScriptedForm = {
  message: 'Describe the release',
  requestedSchema: {
    type: 'object',
    title: 'Release details',
    required: ['name', 'replicas', 'channels', 'notify'],
    properties: {
      name: { type: 'string', title: 'Release name', minLength: 3, pattern: '^[a-z0-9-]+$' },
      replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5, default: 2 },
      ratio: { type: 'number', title: 'Canary ratio', minimum: 0, maximum: 1 },
      notify: { type: 'boolean', title: 'Notify the team', default: true },
      contact: { type: 'string', title: 'Contact email', format: 'email' },
      when: { type: 'string', title: 'Date', format: 'date' },
      channels: {
        type: 'array',
        title: 'Channels',
        minItems: 1,
        maxItems: 2,
        items: {
          anyOf: [
            { const: 'stable', title: 'Stable' },
            { const: 'beta', title: 'Beta' },
            { const: 'nightly', title: 'Nightly' },
          ],
        },
      },
    },
  },
};

function failure(
  form: ScriptedForm,
  script: Parameters<typeof answerFormWithScript>[1],
): ScriptedAnswerError {
  try {
    answerFormWithScript(form, script);
  } catch (error) {
    if (ScriptedAnswerError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ScriptedAnswerError');
}

describe('answerFormWithScript', () => {
  it('accepts a non-default choice by its title, or by its value (the token)', () => {
    expect(answerFormWithScript(deployTarget, { Choice: 'Preview' })).toMatchObject({
      action: 'accept',
      content: { choice: 'choice_0' },
    });
    expect(answerFormWithScript(deployTarget, { choice: 'choice_0' })).toMatchObject({
      action: 'accept',
      content: { choice: 'choice_0' },
    });
  });

  it('answers decline and cancel as scripted', () => {
    expect(answerFormWithScript(deployTarget, 'decline')).toEqual({ action: 'decline' });
    expect(answerFormWithScript(deployTarget, 'cancel')).toEqual({ action: 'cancel' });
  });

  it('answers every field kind from text, and fills the fields left out with their defaults', () => {
    const answer = answerFormWithScript(release, {
      'Release name': 'r-2026',
      Replicas: '4',
      'Canary ratio': '0.25',
      notify: 'no',
      'Contact email': 'ops@example.com',
      Date: '2026-12-24',
      Channels: ['Stable', 'beta'],
    });
    expect(answer).toMatchObject({
      action: 'accept',
      content: {
        name: 'r-2026',
        replicas: 4,
        ratio: 0.25,
        notify: false,
        contact: 'ops@example.com',
        when: '2026-12-24',
        channels: ['stable', 'beta'],
      },
    });
    const defaults = answerFormWithScript(release, { 'Release name': 'r-1', Channels: 'Nightly' });
    if (defaults.action !== 'accept') throw new Error('expected accept');
    expect(defaults.content).toEqual({ name: 'r-1', replicas: 2, notify: true, channels: ['nightly'] });
    expect(defaults.answers.map((entry) => [entry.field.name, entry.source])).toEqual([
      ['name', 'scripted'],
      ['replicas', 'default'],
      ['ratio', 'left empty'],
      ['notify', 'default'],
      ['contact', 'left empty'],
      ['when', 'left empty'],
      ['channels', 'scripted'],
    ]);
  });

  it('takes typed JSON values as they are', () => {
    expect(
      answerFormWithScript(release, { name: 'r-1', replicas: 5, notify: true, channels: ['Stable'] }),
    ).toMatchObject({ content: { replicas: 5, notify: true } });
  });

  it('names the form and lists its fields when a key names no field', () => {
    const error = failure(deployTarget, { Target: 'Preview' });
    expect(error.code).toBe(TestingErrorCode.UnknownField);
    expect(error.form).toBe('Choose a deployment target');
    expect(error.field).toBe('Target');
    expect(error.message).toBe(
      'The form "Choose a deployment target" has no field "Target" (its fields: "Choice" (choice)).',
    );
  });

  it.each([
    [{ Choice: 'Staging' }, 'choice', '"Staging" is not one of its options ("Preview", "Production")'],
    [{ Choice: ['Preview', 'Production'] }, 'choice', 'it takes one option, but the script gives 2'],
  ] as const)('rejects a choice that matches no option: %j', (script, field, problem) => {
    const error = failure(deployTarget, script);
    expect(error.code).toBe(TestingErrorCode.InvalidAnswer);
    expect(error.field).toBe(field);
    expect(error.message).toBe(
      `The answer for the field "Choice" of the form "Choose a deployment target" does not fit: ${problem}`,
    );
  });

  it.each([
    ['name', 'Release name', { name: 'R!' }, 'Enter at least 3 characters.'],
    ['name', 'Release name', { name: 'UPPER' }, 'Must match the pattern ^[a-z0-9-]+$.'],
    [
      'replicas',
      'Replicas',
      { replicas: 'three' },
      'it takes a decimal number such as 3, -2 or 0.25, not "three"',
    ],
    ['replicas', 'Replicas', { replicas: '2.5' }, 'Enter a whole number.'],
    ['replicas', 'Replicas', { replicas: '9' }, 'Must be at most 5.'],
    ['ratio', 'Canary ratio', { ratio: '' }, 'it takes a decimal number such as 3, -2 or 0.25, not ""'],
    ['notify', 'Notify the team', { notify: 'maybe' }, 'it takes yes or no (true/false), not "maybe"'],
    ['contact', 'Contact email', { contact: 'not-an-email' }, 'Enter a valid email address.'],
    ['when', 'Date', { when: '24.12.2026' }, 'Enter a date as YYYY-MM-DD.'],
    ['channels', 'Channels', { channels: ['Stable', 'Beta', 'Nightly'] }, 'Choose at most 2 options.'],
    [
      'channels',
      'Channels',
      { channels: ['Alpha'] },
      '"Alpha" is not one of its options ("Stable", "Beta", "Nightly")',
    ],
    ['name', 'Release name', { name: 7 }, 'it takes text, not 7'],
  ] as const)('rejects an invalid %s (%s): %j', (field, label, script, problem) => {
    const error = failure(release, { name: 'ok-name', channels: ['Stable'], ...script });
    expect(error.code).toBe(TestingErrorCode.InvalidAnswer);
    expect(error.field).toBe(field);
    expect(error.form).toBe('Release details');
    expect(error.message).toBe(
      `The answer for the field "${label}" of the form "Release details" does not fit: ${problem}`,
    );
  });

  it('never fills a required field without a default: the script must give it', () => {
    const error = failure(release, { Channels: 'Stable' });
    expect(error.code).toBe(TestingErrorCode.MissingAnswer);
    expect(error.field).toBe('name');
    expect(error.message).toBe(
      'The form "Release details" needs an answer for the field "Release name", which the script leaves out ' +
        '(Release name is required and has no default).',
    );
  });

  it('never picks for a required field the script leaves out, whatever its kind, unless it has a default', () => {
    const kinds: ScriptedForm = {
      message: 'Every kind',
      requestedSchema: {
        type: 'object',
        required: ['colours', 'target', 'flag', 'size'],
        properties: {
          colours: {
            type: 'array',
            title: 'Colours',
            minItems: 1,
            items: {
              anyOf: [
                { const: 'red', title: 'red' },
                { const: 'blue', title: 'blue' },
              ],
            },
          },
          target: { type: 'string', title: 'Target', oneOf: [{ const: 't0', title: 'Preview' }] },
          flag: { type: 'boolean', title: 'Flag' },
          size: { type: 'integer', title: 'Size', default: 2 },
        },
      },
    };
    const full = { Colours: 'red', Target: 'Preview', Flag: 'no' };
    expect(answerFormWithScript(kinds, full)).toMatchObject({
      content: { colours: ['red'], target: 't0', flag: false, size: 2 },
    });
    for (const [left, label] of [
      ['Colours', 'Colours'],
      ['Target', 'Target'],
      ['Flag', 'Flag'],
    ] as const) {
      const script: Record<string, string> = { ...full };
      delete script[left];
      const error = failure(kinds, script);
      expect(error.code).toBe(TestingErrorCode.MissingAnswer);
      expect(error.message).toBe(
        `The form "Every kind" needs an answer for the field "${label}", which the script leaves out ` +
          `(${label} is required and has no default).`,
      );
    }
  });

  it('refuses a title that several fields share, naming their properties', () => {
    const twins: ScriptedForm = {
      message: 'Twins',
      requestedSchema: {
        type: 'object',
        properties: { a: { type: 'string', title: 'Same' }, b: { type: 'string', title: 'Same' } },
      },
    };
    const error = failure(twins, { Same: 'x', b: 'y' });
    expect(error.code).toBe(TestingErrorCode.AmbiguousField);
    expect(error.field).toBe('Same');
    expect(error.message).toBe(
      'The form "Twins" has several fields titled "Same" (a, b): answer them by property name instead.',
    );
    expect(answerFormWithScript(twins, { a: 'x', b: 'y' })).toMatchObject({ content: { a: 'x', b: 'y' } });
  });

  it.each([
    '0x3',
    '3e0',
    '1e3',
    '+3',
    ' 3',
    '3 ',
    '03',
    '-03',
    '.5',
    '5.',
    '1_000',
    'Infinity',
    '-',
    '0b1',
    '3.0.1',
    '٣',
  ])('reads only plain decimal text as a number, not %j', (text) => {
    const error = failure(release, { name: 'ok-name', channels: ['Stable'], replicas: text });
    expect(error.code).toBe(TestingErrorCode.InvalidAnswer);
    expect(error.message).toContain(
      `it takes a decimal number such as 3, -2 or 0.25, not ${JSON.stringify(text)}`,
    );
  });

  it.each([
    ['0', 0],
    ['-0', -0],
    ['-0.5', -0.5],
    ['0.25', 0.25],
    ['17', 17],
    ['-120', -120],
    ['10.50', 10.5],
  ] as const)('reads %j as the number %d', (text, value) => {
    const form: ScriptedForm = {
      message: 'A number',
      requestedSchema: { type: 'object', properties: { n: { type: 'number', title: 'N' } } },
    };
    expect(answerFormWithScript(form, { N: text })).toMatchObject({ content: { n: value } });
  });

  it('reports every field that does not fit at once: unknown, invalid and missing, each with its own problem', () => {
    const error = failure(release, { Nmae: 'r-1', Replicas: '9', notify: 'maybe', Channels: 'Stable' });
    expect(error.code).toBe(TestingErrorCode.UnknownField);
    expect(error.field).toBe('Nmae');
    expect(error.form).toBe('Release details');
    expect(error.problems.map(({ code, field }) => [code, field])).toEqual([
      [TestingErrorCode.UnknownField, 'Nmae'],
      [TestingErrorCode.InvalidAnswer, 'replicas'],
      [TestingErrorCode.InvalidAnswer, 'notify'],
      [TestingErrorCode.MissingAnswer, 'name'],
    ]);
    expect(error.message).toBe(
      [
        'The script does not fit the form "Release details" in 4 places:',
        `- ${error.problems[0]?.message}`,
        '- The answer for the field "Replicas" of the form "Release details" does not fit: Must be at most 5.',
        '- The answer for the field "Notify the team" of the form "Release details" does not fit: it takes yes or no ' +
          '(true/false), not "maybe"',
        `- ${error.problems[3]?.message}`,
      ].join('\n'),
    );
    // One problem keeps the one-line message it always had, and lists itself.
    const single = failure(deployTarget, { Target: 'Preview' });
    expect(single.problems).toEqual([
      { code: TestingErrorCode.UnknownField, field: 'Target', message: single.message },
    ]);
  });

  it('rejects a field answered twice, by its name and its title', () => {
    const error = failure(deployTarget, { choice: 'Preview', Choice: 'Production' });
    expect(error.code).toBe(TestingErrorCode.InvalidAnswer);
    expect(error.message).toContain(
      'answers the field "Choice" of the form "Choose a deployment target" twice',
    );
  });
});

describe('parseAnswerAssignments', () => {
  it('splits at the first = and collects a repeated name into a list', () => {
    expect(
      parseAnswerAssignments(['Choice=Preview', 'Note=a=b', 'Channels=Stable', 'Channels=Beta']),
    ).toEqual({
      Choice: 'Preview',
      Note: 'a=b',
      Channels: ['Stable', 'Beta'],
    });
    expect(parseAnswerAssignments(['Empty='])).toEqual({ Empty: '' });
  });

  it.each(['Preview', '=Preview', '  =x'])('rejects %j, which is not NAME=VALUE', (assignment) => {
    expect(() => parseAnswerAssignments([assignment])).toThrow(
      expect.objectContaining({ code: TestingErrorCode.InvalidScript }),
    );
  });
});

describe('parseFormScripts', () => {
  it('accepts objects of answers, "decline" and "cancel"', () => {
    const scripts = [{ Choice: 'Preview' }, 'decline', 'cancel', { n: 3, ok: true, tags: ['a'] }];
    expect(parseFormScripts(scripts, 'answers.json')).toEqual(scripts);
  });

  it.each([
    ['decline', 'answers.json must hold a JSON list with one answer per form'],
    [
      ['accept'],
      'answers.json: answer 1 must be "decline", "cancel" or an object of field answers, not "accept".',
    ],
    [[{}, { Choice: { nested: 1 } }], 'answers.json: answer 2: the value of "Choice" must be a string'],
    [[{ tags: [1] }], 'the value of "tags" must be a string, number, boolean or list of strings, not [1].'],
  ])('names the bad entry of %j', (value, message) => {
    expect(() => parseFormScripts(value, 'answers.json')).toThrow(message);
  });
});

describe('forms picked by title', () => {
  const scripts: FormScriptsByTitle = {
    'Release details': { name: 'r-1', Channels: 'Stable' },
    'Choose a deployment target': 'decline',
  };

  it('parses a JSON object keyed by form title', () => {
    expect(parseFormScripts(scripts, 'answers.json')).toEqual(scripts);
    expect(() => parseFormScripts({ 'Release details': { Replicas: { n: 1 } } }, 'answers.json')).toThrow(
      'answers.json: the answer to "Release details": the value of "Replicas" must be a string, number, boolean or ' +
        'list of strings, not {"n":1}.',
    );
    expect(() => parseFormScripts({ 'Release details': 'accept' }, 'answers.json')).toThrow(
      'answers.json: the answer to "Release details" must be "decline", "cancel" or an object of field answers, not "accept".',
    );
  });

  it('answers each form by its schema title, else its question, as often as it is asked', () => {
    const source = formScriptSource(scripts, 'answers.json');
    expect(source.next(release)).toEqual(scripts['Release details']);
    expect(source.next(deployTarget)).toBe('decline');
    expect(source.next(release)).toEqual(scripts['Release details']);
    expect(formScriptSource({ 'Describe the release': 'cancel' }, 'answers.json').next(release)).toBe(
      'cancel',
    );
  });

  it('names the form and the titles the file holds when no entry names it', () => {
    const source = formScriptSource({ 'Release details': 'decline' }, 'answers.json');
    expect(() => source.next(deployTarget)).toThrow(
      expect.objectContaining({
        code: TestingErrorCode.NoScriptLeft,
        form: 'Choose a deployment target',
        message:
          'The agent asked the form "Choose a deployment target", but answers.json has no answer for it (its answers ' +
          'are for "Release details"; a form is named by its title, else by its question).',
      }),
    );
  });
});

describe('FormScriptQueue', () => {
  it('hands out one script per form, then says the list ran out', () => {
    const queue = new FormScriptQueue([{ Choice: 'Preview' }], 'answers.json');
    expect(queue.next(deployTarget)).toEqual({ Choice: 'Preview' });
    expect(() => queue.next(deployTarget)).toThrow(
      'The agent asked the form "Choose a deployment target", but answers.json holds only 1 answer (one per form, in order).',
    );
  });
});
