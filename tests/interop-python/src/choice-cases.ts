// The inputs both implementations get: choice sets whose forms are compared on the wire, invalid questions, and
// client answers. Each travels to the agents as the JSON argument of a `/choose` prompt, so values are JSON values
// and an absent `description` is an absent key.

/** One choice as both agents receive it (`ElicitationChoice` in Python and TypeScript). */
export interface ChoiceInput {
  readonly value: unknown;
  readonly label: string;
  readonly description?: string | null;
  readonly default?: boolean;
}

/** A question and its choices. */
export interface ChoiceCase {
  readonly question: string;
  readonly choices: readonly ChoiceInput[];
}

/** What the test client answers an `elicitation/create` with: a JSON-RPC result or a JSON-RPC error. */
export type ClientAnswer =
  | { readonly result: unknown }
  | { readonly error: { readonly code: number; readonly message: string } };

/** Accepts `token` as the `choice` field. */
export function acceptToken(token: unknown): ClientAnswer {
  return { result: { action: 'accept', content: { choice: token } } };
}

/** The token the form tests accept: the default's, else the last one (so two-digit indices are exercised). */
export function tokenToAccept(choiceCase: ChoiceCase): { token: string; index: number } {
  const defaultIndex = choiceCase.choices.findIndex((choice) => choice.default === true);
  const index = defaultIndex >= 0 ? defaultIndex : choiceCase.choices.length - 1;
  return { token: `choice_${index}`, index };
}

const DEPLOY_TARGETS: ChoiceCase = {
  question: 'Choose a deployment target',
  choices: [
    { value: 'preview', label: 'Preview' },
    {
      value: 'production',
      label: 'Production',
      description: 'Deploy to the production environment.',
      default: true,
    },
  ],
};

function numbered(count: number, decorate: (index: number) => Partial<ChoiceInput>): ChoiceInput[] {
  return Array.from({ length: count }, (_, index) => ({
    value: { index, name: `option-${index}` },
    label: `Option ${index + 1}`,
    ...decorate(index),
  }));
}

/**
 * Choice sets whose `elicitation/create` params are captured from both implementations and compared as JSON:
 * string, number and object values; unicode and whitespace labels; empty, absent and null descriptions; a default
 * and none; 1, 11 and 50 choices.
 */
export const formCases: Readonly<Record<string, ChoiceCase>> = {
  'deploy-targets': DEPLOY_TARGETS,
  'single-choice': { question: 'Continue?', choices: [{ value: 'yes', label: 'Yes' }] },
  'single-choice-default': {
    question: 'Continue?',
    choices: [{ value: 'yes', label: 'Yes', description: 'Go on.', default: true }],
  },
  'string-values': {
    question: 'Pick a colour',
    choices: [
      { value: 'red', label: 'Red' },
      { value: 'green', label: 'Green' },
      { value: '', label: 'None (empty string value)' },
    ],
  },
  'number-values': {
    question: 'How many replicas?',
    choices: [
      { value: 0, label: 'None' },
      { value: 1, label: 'One' },
      { value: 2.5, label: 'Two and a half' },
      { value: -3, label: 'Minus three' },
    ],
  },
  'object-values': {
    question: 'Which release?',
    choices: [
      { value: { id: 'r1', tags: ['stable'], notes: null }, label: 'Release 1' },
      {
        value: { id: 'r2', tags: [], nested: { depth: { deeper: true } } },
        label: 'Release 2',
        default: true,
      },
    ],
  },
  'mixed-values': {
    question: 'Mixed values',
    choices: [
      { value: 'text', label: 'Text' },
      { value: 42, label: 'Number' },
      { value: ['a', 1, null], label: 'Array' },
      { value: null, label: 'Null' },
      { value: true, label: 'Boolean' },
      { value: { key: 'value' }, label: 'Object' },
    ],
  },
  'duplicate-labels-and-values': {
    question: 'Duplicates are allowed',
    choices: [
      { value: 'same', label: 'Same label' },
      { value: 'same', label: 'Same label' },
      { value: 'other', label: 'Same label', description: 'Only the description differs.' },
    ],
  },
  'unicode-labels': {
    question: 'Wähle eine Sprache — 言語を選択',
    choices: [
      { value: 'de', label: 'Deutsch (Ünïcödé)' },
      { value: 'ja', label: '日本語' },
      { value: 'he', label: 'עברית' },
      { value: 'emoji', label: 'Rocket 🚀 and family 👨‍👩‍👧' },
      { value: 'combining', label: 'e\u0301 (combining acute)' },
      { value: 'astral', label: '𝔘𝔫𝔦𝔠𝔬𝔡𝔢' },
    ],
  },
  'whitespace-labels': {
    question: '  Question with surrounding spaces  ',
    choices: [
      { value: 1, label: '  padded  ' },
      { value: 2, label: 'tab\tinside' },
      { value: 3, label: 'trailing newline\n' },
      { value: 4, label: '\u00a0no-break space' },
      { value: 5, label: 'line\u2028separator' },
      { value: 6, label: '\u0085next line' },
    ],
  },
  'json-special-characters': {
    question: 'Quotes "double" and \'single\', back\\slash, </script>',
    choices: [
      { value: 'quote', label: 'He said "hi"' },
      { value: 'slash', label: 'C:\\path\\to' },
      { value: 'control', label: 'bell\u0007 and escape\u001b' },
      { value: 'html', label: '<b>bold</b> & </script>' },
    ],
  },
  'multiline-question': {
    question: 'Line one\nLine two\r\nLine three',
    choices: [
      { value: 'a', label: 'A' },
      { value: 'b', label: 'B' },
    ],
  },
  'empty-description': {
    question: 'Empty description',
    choices: [
      { value: 'a', label: 'A', description: '' },
      { value: 'b', label: 'B', description: '' },
    ],
  },
  'absent-description': {
    question: 'No descriptions',
    choices: [
      { value: 'a', label: 'A' },
      { value: 'b', label: 'B' },
    ],
  },
  'null-description': {
    question: 'Null descriptions',
    choices: [
      { value: 'a', label: 'A', description: null },
      { value: 'b', label: 'B', description: null },
    ],
  },
  'mixed-descriptions': {
    question: 'Some descriptions',
    choices: [
      { value: 'a', label: 'A', description: 'Has one.' },
      { value: 'b', label: 'B' },
      { value: 'c', label: 'C', description: '' },
      { value: 'd', label: 'D', description: null },
      { value: 'e', label: 'E', description: '   ' },
    ],
  },
  'unicode-descriptions': {
    question: 'Descriptions in many scripts',
    choices: [
      { value: 'a', label: 'A', description: 'Ça coûte 5 €.' },
      { value: 'b', label: 'B', description: 'Zeile 1\nZeile 2' },
      { value: 'c', label: 'C', description: '说明 🚀', default: true },
    ],
  },
  'default-first': {
    question: 'Default first',
    choices: [
      { value: 'a', label: 'A', default: true },
      { value: 'b', label: 'B' },
      { value: 'c', label: 'C' },
    ],
  },
  'default-last': {
    question: 'Default last',
    choices: [
      { value: 'a', label: 'A' },
      { value: 'b', label: 'B' },
      { value: 'c', label: 'C', default: true },
    ],
  },
  'explicit-no-default': {
    question: 'Every default is false',
    choices: [
      { value: 'a', label: 'A', default: false },
      { value: 'b', label: 'B', default: false },
    ],
  },
  'eleven-choices': {
    question: 'Eleven choices (two-digit tokens)',
    choices: numbered(11, () => ({})),
  },
  'fifty-choices': {
    question: 'Fifty choices',
    choices: numbered(50, (index) => ({
      ...(index % 5 === 0 ? { description: `Description ${index}` } : {}),
      ...(index === 24 ? { default: true } : {}),
    })),
  },
  'fifty-choices-no-default': {
    question: 'Fifty choices, no default',
    choices: numbered(50, (index) => (index % 7 === 0 ? { description: '' } : {})),
  },
  'long-label': {
    question: 'A very long label',
    choices: [
      { value: 'long', label: 'L'.repeat(2000), description: 'D'.repeat(2000) },
      { value: 'short', label: 'Short' },
    ],
  },
};

const TWO_CHOICES: ChoiceCase = {
  question: 'Pick one',
  choices: [
    { value: 'a', label: 'A' },
    { value: { b: true }, label: 'B' },
  ],
};

/** A single choice set with one whitespace character as the question, or as the only label. */
function whitespaceCases(): Record<string, ChoiceCase> {
  const characters: Record<string, string> = {
    'U+0085': '\u0085',
    'U+001C': '\u001c',
    'U+001D': '\u001d',
    'U+001E': '\u001e',
    'U+001F': '\u001f',
    'U+FEFF': '\ufeff',
    'U+00A0': '\u00a0',
    'U+2028': '\u2028',
    'U+3000': '\u3000',
    'U+200B': '\u200b',
  };
  const cases: Record<string, ChoiceCase> = {};
  for (const [name, character] of Object.entries(characters)) {
    cases[`question-${name}`] = { question: character, choices: [{ value: 'a', label: 'A' }] };
    cases[`label-${name}`] = { question: 'Pick one', choices: [{ value: 'a', label: ` ${character} ` }] };
  }
  return cases;
}

/**
 * Questions and choices that break (or nearly break) a validation rule, including the whitespace that Python's
 * `str.strip()` and JavaScript's `String.prototype.trim()` treat differently. Where an implementation does not reject
 * one, it sends the form and the test client accepts `choice_0`.
 */
export const validationCases: Readonly<Record<string, ChoiceCase>> = {
  'blank-question-empty': { question: '', choices: TWO_CHOICES.choices },
  'blank-question-whitespace': { question: ' \t\r\n ', choices: TWO_CHOICES.choices },
  'no-choices': { question: 'Pick one', choices: [] },
  'blank-label-empty': { question: 'Pick one', choices: [{ value: 'a', label: '' }] },
  'blank-label-whitespace': {
    question: 'Pick one',
    choices: [
      { value: 'a', label: 'A' },
      { value: 'b', label: ' \t\n' },
    ],
  },
  'two-defaults': {
    question: 'Pick one',
    choices: [
      { value: 'a', label: 'A', default: true },
      { value: 'b', label: 'B', default: true },
    ],
  },
  'blank-question-and-no-choices': { question: ' ', choices: [] },
  'blank-label-and-two-defaults': {
    question: 'Pick one',
    choices: [
      { value: 'a', label: ' ', default: true },
      { value: 'b', label: 'B', default: true },
    ],
  },
  ...whitespaceCases(),
};

/** The choice set every answer case is asked with. */
export const answerChoiceSet = TWO_CHOICES;

/** Client answers to {@link answerChoiceSet}, from valid to malformed. */
export const answerCases: Readonly<Record<string, ClientAnswer>> = {
  'accept choice_1': acceptToken('choice_1'),
  'accept choice_0 with extra content keys': {
    result: { action: 'accept', content: { choice: 'choice_0', comment: 'ignored' } },
  },
  'accept choice_2 (out of range)': acceptToken('choice_2'),
  'accept choice_01': acceptToken('choice_01'),
  'accept choice_1 with a trailing space': acceptToken('choice_1 '),
  'accept choice_-1': acceptToken('choice_-1'),
  'accept a number': acceptToken(1),
  'accept null': acceptToken(null),
  'accept choice_²': acceptToken('choice_²'),
  'accept choice_①': acceptToken('choice_①'),
  'accept choice_١ (Arabic-Indic one)': acceptToken('choice_١'),
  'accept the label': acceptToken('A'),
  'accept without content': { result: { action: 'accept' } },
  'accept with null content': { result: { action: 'accept', content: null } },
  'accept with empty content': { result: { action: 'accept', content: {} } },
  'accept with string content': { result: { action: 'accept', content: 'choice_0' } },
  'unknown action': { result: { action: 'maybe' } },
  'vendor action': { result: { action: '_vendor_later' } },
  'no action': { result: {} },
  decline: { result: { action: 'decline' } },
  'decline with content': { result: { action: 'decline', content: { choice: 'choice_0' } } },
  cancel: { result: { action: 'cancel' } },
  'error -32601 (method not found)': { error: { code: -32601, message: 'Method not found' } },
  'error -32800 (request cancelled)': { error: { code: -32800, message: 'Request cancelled' } },
  'error -32603 (internal error)': { error: { code: -32603, message: 'Internal error' } },
};
