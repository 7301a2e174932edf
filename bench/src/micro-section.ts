// `askChoice` compile + parse and `askForm` compile + validate per call (tinybench), each against an in-process JSON
// round trip of the same request and response as the same-run baseline. All tasks run in alternating short benches,
// one ratio per repeat.
import { compileChoiceElicitation, parseChoiceResponse } from '@acpkit/choice-schema';
import { choiceField, compileFormElicitation, parseFormResponse } from '@acpkit/form-schema';
import { Bench } from 'tinybench';
import { z } from 'zod';
import type { FigureRecord } from './report.js';

const choices = [
  { label: 'Preview', description: 'Deploy to the preview environment' },
  { label: 'Production', description: 'Careful: real users' },
  { label: 'Cancel the deployment', default: true },
] as const;
const response = { action: 'accept', content: { choice: 'choice_1' } };

/** Keeps results observable so the JIT cannot drop the work. */
let sink = 0;

function compileAndParse(): void {
  const request = compileChoiceElicitation({
    sessionId: 'session-1',
    question: 'Where should I deploy?',
    choices,
  });
  const parsed = parseChoiceResponse(response, choices);
  sink += request.requestedSchema.required.length + (parsed.status === 'accepted' ? parsed.index : 0);
}

const compiled = compileChoiceElicitation({
  sessionId: 'session-1',
  question: 'Where should I deploy?',
  choices,
});
function jsonRoundTrip(): void {
  const request = JSON.parse(JSON.stringify(compiled)) as { mode: string };
  const answer = JSON.parse(JSON.stringify(response)) as { action: string };
  sink += request.mode.length + answer.action.length;
}

// A six-field form of every kind, answered in full: what `askForm` compiles (cached per schema object, as askForm
// does) and validates with the same zod schema for each question.
const releaseForm = z.object({
  version: z
    .string()
    .regex(/^\d+\.\d+\.\d+$/)
    .meta({ title: 'Version' }),
  notes: z.string().min(3).max(200).optional(),
  date: z.iso.date().optional(),
  channel: choiceField([
    { value: { npmTag: 'latest' }, label: 'Stable', default: true },
    { value: { npmTag: 'next' }, label: 'Preview' },
  ]),
  rollout: z.int().min(1).max(100).default(10),
  regions: z.array(z.enum(['eu', 'us', 'ap'])).min(1),
});
const formAnswer = {
  action: 'accept',
  content: {
    version: '1.5.0',
    notes: 'Typed forms.',
    date: '2026-12-01',
    channel: 'choice_1',
    rollout: 25,
    regions: ['eu'],
  },
};

async function compileAndValidateForm(): Promise<void> {
  const request = compileFormElicitation({
    sessionId: 'session-1',
    message: 'Plan the release',
    schema: releaseForm,
  });
  const parsed = await parseFormResponse(formAnswer, releaseForm);
  sink += request.message.length + (parsed.status === 'accepted' ? parsed.value.rollout : 0);
}

const compiledForm = compileFormElicitation({
  sessionId: 'session-1',
  message: 'Plan the release',
  schema: releaseForm,
});
function formJsonRoundTrip(): void {
  const request = JSON.parse(JSON.stringify(compiledForm)) as { mode: string };
  const answer = JSON.parse(JSON.stringify(formAnswer)) as { action: string };
  sink += request.mode.length + answer.action.length;
}

/**
 * Runs `repeats` alternating benches of all tasks and returns the per-call time in microseconds.
 *
 * @example
 * ```ts
 * const records = await runMicroSection({ repeats: 5, sliceMs: 300, log: console.error });
 * ```
 */
export async function runMicroSection(options: {
  repeats: number;
  sliceMs: number;
  log: (line: string) => void;
}): Promise<FigureRecord[]> {
  const tasks = [
    ['askChoice compile + parse', compileAndParse],
    ['JSON round trip of the same messages', jsonRoundTrip],
    ['askForm compile + validate (6 fields)', compileAndValidateForm],
    ['JSON round trip of the same form messages', formJsonRoundTrip],
  ] as const;
  const perCallByTask: number[][] = tasks.map(() => []);
  for (let round = 0; round <= options.repeats; round += 1) {
    const bench = new Bench({ time: options.sliceMs, warmup: true });
    for (const [name, task] of tasks) bench.add(name, task);
    await bench.run();
    if (round === 0) continue;
    bench.tasks.forEach((task, index) => {
      const result = task.result;
      if (!result || !('period' in result)) throw new Error(`tinybench task ${task.name} has no result`);
      // `period` is total time over runs in milliseconds: robust for sub-microsecond calls where single samples
      // hit the timer's resolution.
      perCallByTask[index]?.push(result.period * 1_000);
    });
  }
  const [ours = [], baseline = [], form = [], formBaseline = []] = perCallByTask;
  options.log(`micro-benchmarks done (sink ${sink > 0 ? 'used' : 'empty'})`);
  return [
    {
      section: 'micro',
      path: 'ask-choice',
      pathLabel: 'askChoice compile + parse (tinybench, per call)',
      figure: 'compile-parse-us',
      unit: 'µs',
      kind: 'time',
      values: ours,
      baselineValues: baseline,
      baselineLabel: 'JSON stringify+parse of the same request and response',
    },
    {
      section: 'micro',
      path: 'ask-form',
      pathLabel: 'askForm compile + validate, 6-field form (tinybench, per call)',
      figure: 'compile-validate-us',
      unit: 'µs',
      kind: 'time',
      values: form,
      baselineValues: formBaseline,
      baselineLabel: 'JSON stringify+parse of the same form request and answer',
    },
  ];
}
