// Validation and parsing parity: the same invalid questions (including whitespace Python's `strip()` and JS `trim()`
// disagree on) and the same client answers go through the real Python `ask_choice` and our `askChoice`, each over a
// real stdio connection. Every case must end the same way on both sides (the error classes mapped as
// docs/typed-elicitation.md says), or be listed, with both outcomes, as a deliberate difference in that page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapAll } from '../../e2e/support/processes.js';
import {
  type CapturedOutcome,
  captureAnswers,
  captureValidation,
  type PythonVectors,
  readPythonVectors,
} from '../src/captures.js';
import { type ChoiceOutcome, type Implementation, startChoiceAgent } from '../src/choice-agents.js';
import { acceptToken, answerCases, formCases, validationCases } from '../src/choice-cases.js';
import { codeSpans, readMarkedTable } from '../src/compatibility-tables.js';
import { sameOutcome, summarize } from '../src/outcomes.js';
import { interopPaths } from '../src/paths.js';
import { failEveryTestWithoutPythonVenv } from './support/venv.js';

const pythonReady = failEveryTestWithoutPythonVenv();

/** Clients whose `initialize` does not make form elicitation available. */
const capabilityCases: Readonly<Record<string, Record<string, unknown>>> = {
  'client without elicitation': {},
  'client with empty elicitation': { elicitation: {} },
  'client with url elicitation only': { elicitation: { url: {} } },
};

interface Observed {
  readonly python: CapturedOutcome;
  readonly typescript: CapturedOutcome;
}

const observed = new Map<string, Observed>();
let vectors: PythonVectors;

async function captureCapabilityCase(
  implementation: Implementation,
  clientCapabilities: Record<string, unknown>,
): Promise<CapturedOutcome> {
  const agent = await startChoiceAgent(implementation, clientCapabilities);
  try {
    const turn = await agent.session.ask(
      formCases['deploy-targets'] as (typeof formCases)[string],
      acceptToken('choice_0'),
    );
    return { formSent: turn.elicitations.length > 0, outcome: turn.outcome };
  } finally {
    await agent.close();
  }
}

beforeAll(async () => {
  if (!pythonReady) return;
  vectors = readPythonVectors();
  const agents = await Promise.all([startChoiceAgent('python'), startChoiceAgent('typescript')]);
  const [python, typescript] = agents;
  if (!python || !typescript) throw new Error('both agents must start');
  try {
    const [pythonValidation, typescriptValidation] = await Promise.all([
      captureValidation(python.session),
      captureValidation(typescript.session),
    ]);
    const [pythonAnswers, typescriptAnswers] = await Promise.all([
      captureAnswers(python.session),
      captureAnswers(typescript.session),
    ]);
    for (const name of Object.keys(validationCases)) {
      observed.set(name, {
        python: pythonValidation[name] as CapturedOutcome,
        typescript: typescriptValidation[name] as CapturedOutcome,
      });
    }
    for (const name of Object.keys(answerCases)) {
      observed.set(name, {
        python: pythonAnswers[name] as CapturedOutcome,
        typescript: typescriptAnswers[name] as CapturedOutcome,
      });
    }
  } finally {
    for (const agent of agents) expect(await agent.close()).toEqual({ code: 0, signal: null });
  }
  for (const [name, capabilities] of Object.entries(capabilityCases)) {
    const [pythonOutcome, typescriptOutcome] = await Promise.all([
      captureCapabilityCase('python', capabilities),
      captureCapabilityCase('typescript', capabilities),
    ]);
    observed.set(name, { python: pythonOutcome, typescript: typescriptOutcome });
  }
});

afterAll(async () => {
  await reapAll();
});

/** Python exception class → ours, from the error-class table of docs/typed-elicitation.md. */
function documentedErrorClasses(): Map<string, string> {
  const classes = new Map<string, string>();
  for (const [pythonCell = '', typescriptCell = ''] of readMarkedTable(
    interopPaths.typedElicitationDocs,
    'ask-choice-error-classes',
  )) {
    const [pythonClass] = codeSpans(pythonCell);
    const [typescriptClass] = codeSpans(typescriptCell);
    if (pythonClass === undefined || typescriptClass === undefined) {
      throw new Error(`an error-class row names no class: ${pythonCell} | ${typescriptCell}`);
    }
    classes.set(pythonClass, typescriptClass);
  }
  return classes;
}

/** The outcome-difference table of docs/typed-elicitation.md: case → [Python summary, our summary]. */
function documentedOutcomeDifferences(): Map<string, readonly [string, string]> {
  const differences = new Map<string, readonly [string, string]>();
  for (const [casesCell = '', pythonCell = '', typescriptCell = ''] of readMarkedTable(
    interopPaths.typedElicitationDocs,
    'ask-choice-outcome-differences',
  )) {
    const [pythonSummary = ''] = codeSpans(pythonCell);
    const [typescriptSummary = ''] = codeSpans(typescriptCell);
    for (const name of codeSpans(casesCell)) differences.set(name, [pythonSummary, typescriptSummary]);
  }
  return differences;
}

const allCases = [
  ...Object.keys(validationCases),
  ...Object.keys(answerCases),
  ...Object.keys(capabilityCases),
];

describe.each([
  ['invalid questions and choices', Object.keys(validationCases)],
  ['client answers', Object.keys(answerCases)],
  ['clients that cannot show forms', Object.keys(capabilityCases)],
])('%s', (_group, names) => {
  it.each(names)('%s: same outcome in both, or the documented difference', (name) => {
    const { python, typescript } = observed.get(name) as Observed;
    const listed = documentedOutcomeDifferences().get(name);
    const outcomes = `Python: ${summarize(python.outcome)}\nTypeScript: ${summarize(typescript.outcome)}`;
    if (sameOutcome(python.outcome, typescript.outcome, documentedErrorClasses())) {
      expect(listed, `documented as a difference, but both agree:\n${outcomes}`).toBeUndefined();
      expect(typescript.formSent).toBe(python.formSent);
    } else {
      expect(listed, `undocumented difference:\n${outcomes}`).toBeDefined();
      expect(listed).toEqual([summarize(python.outcome), summarize(typescript.outcome)]);
    }
  });
});

describe('the tables and the vectors', () => {
  it('list only cases these tests run', () => {
    for (const name of documentedOutcomeDifferences().keys()) expect(allCases).toContain(name);
  });

  it('match the real Python outcomes committed as vectors', () => {
    for (const name of Object.keys(validationCases)) {
      expect(observed.get(name)?.python, name).toEqual(vectors.validation[name]);
    }
    for (const name of Object.keys(answerCases)) {
      expect(observed.get(name)?.python, name).toEqual(vectors.answers[name]);
    }
  });

  it('map every Python exception class the cases raised', () => {
    const classes = documentedErrorClasses();
    const raised = new Set<string>();
    for (const { python } of observed.values()) {
      const outcome: ChoiceOutcome = python.outcome;
      if (outcome.outcome === 'error') raised.add(outcome.type);
    }
    for (const pythonClass of classes.keys()) expect([...raised]).toContain(pythonClass);
  });
});
