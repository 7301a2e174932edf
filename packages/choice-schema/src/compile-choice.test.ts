import { AcpKitError } from '@acpkit/errors';
import { describe, expect, it } from 'vitest';
import {
  CHOICE_DESCRIPTION_META_KEY,
  choiceToken,
  compileChoiceElicitation,
  compileChoiceOptions,
  validateChoiceQuestion,
  validateChoices,
  validateQuestion,
} from './compile-choice.js';
import { ChoiceValidationError } from './errors.js';

const seedChoices = [
  { label: 'Preview' },
  { label: 'Production', description: 'Deploy to the production environment.', default: true },
];

describe('compileChoiceElicitation', () => {
  it('compiles the seed example to the reference JSON plus the standard description, key for key', () => {
    const params = compileChoiceElicitation({
      sessionId: 'elicitation-session',
      question: 'Choose a deployment target',
      choices: seedChoices,
    });
    // acpkit-python-behaviour.md §1.3, with the standard `description` added beside `_meta`.
    const expected = {
      sessionId: 'elicitation-session',
      mode: 'form',
      message: 'Choose a deployment target',
      requestedSchema: {
        type: 'object',
        required: ['choice'],
        properties: {
          choice: {
            type: 'string',
            title: 'Choice',
            default: 'choice_1',
            oneOf: [
              { const: 'choice_0', title: 'Preview' },
              {
                const: 'choice_1',
                title: 'Production',
                description: 'Deploy to the production environment.',
                _meta: { 'acpkit.dev/choice-description': 'Deploy to the production environment.' },
              },
            ],
          },
        },
      },
    };
    expect(params).toStrictEqual(expected);
    expect(JSON.stringify(params)).toBe(JSON.stringify(expected));
  });

  it('leaves out default when no choice is the default', () => {
    const params = compileChoiceElicitation({ sessionId: 's', question: 'Q?', choices: [{ label: 'A' }] });
    expect(params.requestedSchema.properties.choice).not.toHaveProperty('default');
    expect(params.requestedSchema.properties.choice).toStrictEqual({
      type: 'string',
      title: 'Choice',
      oneOf: [{ const: 'choice_0', title: 'A' }],
    });
  });

  it('puts the default on the token of the choice marked default, wherever it is', () => {
    const choices = [{ label: 'A', default: true }, { label: 'B' }, { label: 'C', default: false }];
    const params = compileChoiceElicitation({ sessionId: 's', question: 'Q?', choices });
    expect(params.requestedSchema.properties.choice.default).toBe('choice_0');
  });

  it('numbers tokens in decimal without padding, in input order', () => {
    const choices = Array.from({ length: 12 }, (_, index) => ({ label: `Option ${index}` }));
    const params = compileChoiceElicitation({ sessionId: 's', question: 'Q?', choices });
    const tokens = params.requestedSchema.properties.choice.oneOf.map((option) => option.const);
    expect(tokens).toEqual(Array.from({ length: 12 }, (_, index) => `choice_${index}`));
    expect(tokens[10]).toBe('choice_10');
    expect(params.requestedSchema.properties.choice.oneOf[11]?.title).toBe('Option 11');
  });

  it('sends an empty description under both keys, and neither key without one', () => {
    const params = compileChoiceElicitation({
      sessionId: 's',
      question: 'Q?',
      choices: [
        { label: 'Empty', description: '' },
        { label: 'None' },
        { label: 'Undefined', description: undefined },
      ],
    });
    const [empty, none, undefinedDescription] = params.requestedSchema.properties.choice.oneOf;
    expect(empty).toStrictEqual({
      const: 'choice_0',
      title: 'Empty',
      description: '',
      _meta: { [CHOICE_DESCRIPTION_META_KEY]: '' },
    });
    expect(Object.keys(none ?? {})).toEqual(['const', 'title']);
    expect(Object.keys(undefinedDescription ?? {})).toEqual(['const', 'title']);
  });

  it('sends the question and labels untrimmed', () => {
    const params = compileChoiceElicitation({
      sessionId: 's',
      question: '  Pick one \n',
      choices: [{ label: ' A ' }],
    });
    expect(params.message).toBe('  Pick one \n');
    expect(params.requestedSchema.properties.choice.oneOf[0]?.title).toBe(' A ');
  });

  it('adds toolCallId only when given', () => {
    const withTool = compileChoiceElicitation({
      sessionId: 's',
      toolCallId: 'call-7',
      question: 'Q?',
      choices: [{ label: 'A' }],
    });
    expect(Object.keys(withTool)).toEqual(['sessionId', 'toolCallId', 'mode', 'message', 'requestedSchema']);
    expect(withTool.toolCallId).toBe('call-7');
    const withoutTool = compileChoiceElicitation({
      sessionId: 's',
      question: 'Q?',
      choices: [{ label: 'A' }],
    });
    expect(Object.keys(withoutTool)).toEqual(['sessionId', 'mode', 'message', 'requestedSchema']);
  });

  it('never puts choice values on the wire', () => {
    const secret = { path: '/srv/secret' };
    const params = compileChoiceElicitation({
      sessionId: 's',
      question: 'Q?',
      choices: [{ label: 'A', value: secret } as { label: string }],
    });
    expect(JSON.stringify(params)).not.toContain('/srv/secret');
  });

  it('validates before compiling', () => {
    expect(() =>
      compileChoiceElicitation({ sessionId: 's', question: ' ', choices: [{ label: 'A' }] }),
    ).toThrow('question must not be blank');
  });
});

describe('validateChoiceQuestion', () => {
  function codeOf(run: () => void): { code: string; message: string } {
    try {
      run();
    } catch (error) {
      expect(ChoiceValidationError.isInstance(error)).toBe(true);
      expect(AcpKitError.isInstance(error)).toBe(true);
      expect(error).toBeInstanceOf(ChoiceValidationError);
      const { code, message } = error as ChoiceValidationError;
      return { code, message };
    }
    throw new Error('expected a ChoiceValidationError');
  }

  it.each([
    ['empty', ''],
    ['spaces', '   '],
    ['tab and newline', '\t\n'],
    ['no-break space', '\u00a0'],
    ['line separator', '\u2028'],
    ['paragraph separator and ideographic space', '\u2029\u3000'],
  ])('rejects a blank question (%s)', (_name, question) => {
    expect(codeOf(() => validateChoiceQuestion(question, [{ label: 'A' }]))).toEqual({
      code: 'BLANK_QUESTION',
      message: 'question must not be blank',
    });
  });

  it('rejects a non-string question as blank', () => {
    expect(codeOf(() => validateChoiceQuestion(undefined as unknown as string, [{ label: 'A' }])).code).toBe(
      'BLANK_QUESTION',
    );
  });

  it('rejects empty choices', () => {
    expect(codeOf(() => validateChoiceQuestion('Q?', []))).toEqual({
      code: 'EMPTY_CHOICES',
      message: 'choices must not be empty',
    });
  });

  it.each([
    ['empty', ''],
    ['spaces', '  '],
    ['no-break space', '\u00a0'],
    ['line separator', '\u2028'],
  ])('rejects a blank label (%s)', (_name, label) => {
    expect(codeOf(() => validateChoiceQuestion('Q?', [{ label: 'A' }, { label }]))).toEqual({
      code: 'BLANK_LABEL',
      message: 'choice labels must not be blank',
    });
  });

  it('rejects two defaults', () => {
    expect(
      codeOf(() =>
        validateChoiceQuestion('Q?', [
          { label: 'A', default: true },
          { label: 'B' },
          { label: 'C', default: true },
        ]),
      ),
    ).toEqual({ code: 'MULTIPLE_DEFAULTS', message: 'at most one choice may be the default' });
  });

  it('checks the rules in order: question, choices, labels, defaults', () => {
    expect(codeOf(() => validateChoiceQuestion(' ', [])).code).toBe('BLANK_QUESTION');
    expect(
      codeOf(() =>
        validateChoiceQuestion('Q?', [
          { label: ' ', default: true },
          { label: 'B', default: true },
        ]),
      ).code,
    ).toBe('BLANK_LABEL');
  });

  it('accepts duplicate labels and a single default', () => {
    expect(() =>
      validateChoiceQuestion('Q?', [{ label: 'Same' }, { label: 'Same', default: true }]),
    ).not.toThrow();
  });
});

describe('choiceToken', () => {
  it('formats choice_<index>', () => {
    expect(choiceToken(0)).toBe('choice_0');
    expect(choiceToken(42)).toBe('choice_42');
  });
});

describe('validateChoices', () => {
  it('allows several defaults only for a multi-select', () => {
    const choices = [
      { label: 'Stable', default: true },
      { label: 'Beta', default: true },
    ];
    expect(() => validateChoices(choices, { multiSelect: true })).not.toThrow();
    expect(() => validateChoices(choices)).toThrow(
      expect.objectContaining({ code: 'MULTIPLE_DEFAULTS', name: 'ChoiceValidationError' }),
    );
  });

  it('checks emptiness before labels', () => {
    expect(() => validateChoices([], { multiSelect: true })).toThrow(
      expect.objectContaining({ code: 'EMPTY_CHOICES' }),
    );
    expect(() => validateChoices([{ label: ' ' }], { multiSelect: true })).toThrow(
      expect.objectContaining({ code: 'BLANK_LABEL' }),
    );
  });
});

describe('validateQuestion', () => {
  it('refuses a blank question with BLANK_QUESTION and accepts any other text', () => {
    expect(() => validateQuestion('\u2028 ')).toThrow(expect.objectContaining({ code: 'BLANK_QUESTION' }));
    expect(() => validateQuestion(' Release details ')).not.toThrow();
  });
});

describe('compileChoiceOptions', () => {
  it('builds the same options askChoice sends, without validating', () => {
    expect(compileChoiceOptions(seedChoices)).toStrictEqual(
      compileChoiceElicitation({ sessionId: 's', question: 'Q', choices: seedChoices }).requestedSchema
        .properties.choice.oneOf,
    );
    expect(compileChoiceOptions([])).toEqual([]);
  });
});
