// Captures of one choice agent for every case: the form it sends (sessionId replaced by a placeholder) and the
// outcome it reports. The live tests capture both implementations; the committed vectors hold Python's.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type ChoiceOutcome, type RawClientSession, withoutSessionId } from './choice-agents.js';
import {
  acceptToken,
  answerCases,
  answerChoiceSet,
  type ChoiceCase,
  formCases,
  tokenToAccept,
  validationCases,
} from './choice-cases.js';
import { interopPaths, python } from './paths.js';

/** One form case: the token the client accepted, the `elicitation/create` params, and the outcome. */
export interface CapturedForm {
  readonly accepted: string;
  readonly params: Record<string, unknown>;
  readonly outcome: ChoiceOutcome;
}

/** One validation or answer case: whether a form was sent at all, and the outcome. */
export interface CapturedOutcome {
  readonly formSent: boolean;
  readonly outcome: ChoiceOutcome;
}

/** Everything captured from one implementation. */
export interface Captures {
  readonly forms: Record<string, CapturedForm>;
  readonly validation: Record<string, CapturedOutcome>;
  readonly answers: Record<string, CapturedOutcome>;
}

/** The committed vectors file: Python's captures and the package versions they came from. */
export interface PythonVectors extends Captures {
  readonly comment: string;
  readonly python: Record<string, string>;
}

/** The Python distributions whose versions the vectors record. */
export const RECORDED_DISTRIBUTIONS = [
  'acpkit',
  'acpremote',
  'pydantic-acp',
  'agent-client-protocol',
] as const;

async function captureForm(session: RawClientSession, choiceCase: ChoiceCase): Promise<CapturedForm> {
  const { token } = tokenToAccept(choiceCase);
  const turn = await session.ask(choiceCase, acceptToken(token));
  if (turn.elicitations.length !== 1) {
    throw new Error(
      `expected one elicitation/create, got ${turn.elicitations.length}: ${JSON.stringify(turn)}`,
    );
  }
  return {
    accepted: token,
    params: withoutSessionId(turn.elicitations[0] as Record<string, unknown>, session.sessionId),
    outcome: turn.outcome,
  };
}

/** Asks every form case on `session`, accepting the default's token (else the last one). */
export async function captureForms(session: RawClientSession): Promise<Record<string, CapturedForm>> {
  const forms: Record<string, CapturedForm> = {};
  for (const [name, choiceCase] of Object.entries(formCases)) {
    forms[name] = await captureForm(session, choiceCase);
  }
  return forms;
}

/** Asks every validation case on `session`, accepting `choice_0` if a form is sent at all. */
export async function captureValidation(session: RawClientSession): Promise<Record<string, CapturedOutcome>> {
  const validation: Record<string, CapturedOutcome> = {};
  for (const [name, choiceCase] of Object.entries(validationCases)) {
    const turn = await session.ask(choiceCase, acceptToken('choice_0'));
    validation[name] = { formSent: turn.elicitations.length > 0, outcome: turn.outcome };
  }
  return validation;
}

/** Asks {@link answerChoiceSet} once per answer case on `session`, answering with that case. */
export async function captureAnswers(session: RawClientSession): Promise<Record<string, CapturedOutcome>> {
  const answers: Record<string, CapturedOutcome> = {};
  for (const [name, answer] of Object.entries(answerCases)) {
    const turn = await session.ask(answerChoiceSet, answer);
    answers[name] = { formSent: turn.elicitations.length > 0, outcome: turn.outcome };
  }
  return answers;
}

/** Every form, validation and answer case, one after the other. */
export async function captureAll(session: RawClientSession): Promise<Captures> {
  return {
    forms: await captureForms(session),
    validation: await captureValidation(session),
    answers: await captureAnswers(session),
  };
}

/** Versions of {@link RECORDED_DISTRIBUTIONS} installed in the venv. */
export function installedPythonVersions(): Record<string, string> {
  const result = spawnSync(
    python.interpreter,
    [
      '-c',
      'import json, sys; from importlib.metadata import version; print(json.dumps({n: version(n) for n in sys.argv[1:]}))',
      ...RECORDED_DISTRIBUTIONS,
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`cannot read the venv's versions: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, string>;
}

/** The committed vectors. */
export function readPythonVectors(): PythonVectors {
  return JSON.parse(readFileSync(interopPaths.pythonVectors, 'utf8')) as PythonVectors;
}
