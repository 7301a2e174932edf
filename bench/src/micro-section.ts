// `askChoice` compile + parse per call (tinybench), against an in-process JSON round trip of the same request and
// response as the same-run baseline. Both tasks run in alternating short benches, one ratio per repeat.
import { compileChoiceElicitation, parseChoiceResponse } from '@acpkit/choice-schema';
import { Bench } from 'tinybench';
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

/**
 * Runs `repeats` alternating benches of both tasks and returns the per-call time in microseconds.
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
  const ours: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round <= options.repeats; round += 1) {
    const bench = new Bench({ time: options.sliceMs, warmup: true });
    bench
      .add('askChoice compile + parse', compileAndParse)
      .add('JSON round trip of the same messages', jsonRoundTrip);
    await bench.run();
    if (round === 0) continue;
    const [compileTask, jsonTask] = bench.tasks;
    const perCall = (task: typeof compileTask) => {
      const result = task?.result;
      if (!result || !('period' in result)) throw new Error(`tinybench task ${task?.name} has no result`);
      // `period` is total time over runs in milliseconds: robust for sub-microsecond calls where single samples
      // hit the timer's resolution.
      return result.period * 1_000;
    };
    ours.push(perCall(compileTask));
    baseline.push(perCall(jsonTask));
  }
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
  ];
}
