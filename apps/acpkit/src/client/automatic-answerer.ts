import {
  type AnswerScripts,
  answerFormWithScript,
  type FormScript,
  ScriptedAnswerError,
  TestingErrorCode,
} from '@acpkit/testing';
import {
  answerFormAutomatically,
  choosePermissionAutomatically,
  describeValue,
  type FieldValue,
  type FormField,
  formScriptSource,
  readForm,
} from '@acpkit/testing/internal';
import type {
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import type { Answerer, FormElicitationRequest, UrlElicitationRequest } from './answerer.js';
import { reviewUrl } from './url-safety.js';

/**
 * Where the scripted answers of `acpkit client` come from: one script for every form (`--answer`, `--decline`,
 * `--cancel`) or per-form scripts (`--answers FILE`: a list used one form at a time, or scripts keyed by form title).
 * `source` names it in the printed answers.
 */
export type FormScripts =
  | { readonly kind: 'every-form'; readonly script: FormScript; readonly source: string }
  | { readonly kind: 'list'; readonly scripts: AnswerScripts; readonly source: string };

/**
 * One printed answer: `Label: value [where it came from]`. A field left empty says so once, without a source that
 * would only repeat it.
 */
function answerLine(field: FormField, value: FieldValue | undefined, from: string): string {
  if (value === undefined) return `  ${field.label}: (left empty)`;
  return `  ${field.label}: ${describeValue(field, value)} [${from}]`;
}

/**
 * `--answer` answers every form with the same values, which forms other than the one the answers were written for
 * rarely fit: when one does not (a NAME that is no field of it, the first form included; after an earlier form, any
 * misfit), the error says so and points to the per-form file.
 */
function explainRepeatedAnswers(error: unknown, scripts: FormScripts, earlierForms: number): unknown {
  const doesNotFit =
    ScriptedAnswerError.isInstance(error) &&
    error.problems.some(
      ({ code }) =>
        code === TestingErrorCode.UnknownField ||
        (earlierForms > 0 &&
          (code === TestingErrorCode.InvalidAnswer || code === TestingErrorCode.MissingAnswer)),
    );
  if (scripts.kind !== 'every-form' || scripts.source !== '--answer' || !doesNotFit) return error;
  const which = earlierForms > 0 ? ', and an earlier form took these answers' : '';
  return new ScriptedAnswerError(
    error.code,
    `${error.message}\n--answer applies to every form the agent asks${which}; to answer each form differently, give ` +
      'one answer per form, or answers keyed by form title, with --answers FILE.',
    {
      ...(error.form === undefined ? {} : { form: error.form }),
      ...(error.field === undefined ? {} : { field: error.field }),
      problems: error.problems,
      cause: error,
    },
  );
}

function scriptFor(scripts: FormScripts): (request: FormElicitationRequest) => FormScript {
  if (scripts.kind === 'every-form') return () => scripts.script;
  const source = formScriptSource(scripts.scripts, scripts.source);
  return (request) => source.next(request);
}

/**
 * Answers without asking: forms from `scripts` when given (by the rules `@acpkit/testing` shares with the test
 * client), else with their defaults (see `answerFormAutomatically`); permissions with the first "allow" option; URL
 * requests with a decline (nobody is there to open the URL). Every answer is printed through `print`, so a script's
 * log shows what was answered on the person's behalf, by field label (never the agent's internal tokens).
 *
 * @example
 * ```ts
 * const answerer = new AutomaticAnswerer('Deploy Target', (line) => process.stdout.write(`${line}\n`));
 * ```
 */
export class AutomaticAnswerer implements Answerer {
  private readonly nextScript: ((request: FormElicitationRequest) => FormScript) | undefined;
  /** Forms answered from the script so far. */
  private scriptedForms = 0;

  constructor(
    private readonly agentLabel: string,
    private readonly print: (line: string) => void,
    private readonly scripts?: FormScripts,
  ) {
    this.nextScript = scripts === undefined ? undefined : scriptFor(scripts);
  }

  /**
   * @throws {@link ScriptedAnswerError} when the script does not fit the form (or the `--answers` list ran out).
   */
  async answerForm(request: FormElicitationRequest): Promise<CreateElicitationResponse> {
    this.print(`? ${this.agentLabel} asks: ${request.message}`);
    const scripts = this.scripts;
    if (scripts === undefined || this.nextScript === undefined) return this.answerWithDefaults(request);
    let answer: ReturnType<typeof answerFormWithScript>;
    try {
      answer = answerFormWithScript(request, this.nextScript(request));
    } catch (error) {
      throw explainRepeatedAnswers(error, scripts, this.scriptedForms);
    }
    this.scriptedForms += 1;
    if (answer.action !== 'accept') {
      this.print(`  Answered from ${scripts.source}: ${answer.action}`);
      return { action: answer.action };
    }
    for (const { field, value, source } of answer.answers) {
      this.print(answerLine(field, value, source === 'scripted' ? scripts.source : source));
    }
    this.print(`  Answered from ${scripts.source}: accept`);
    return { action: 'accept', content: answer.content };
  }

  private answerWithDefaults(request: FormElicitationRequest): CreateElicitationResponse {
    const answer = answerFormAutomatically(readForm(request.requestedSchema));
    if (answer.action === 'decline') {
      this.print(`  Declined automatically: ${answer.reason}.`);
      return { action: 'decline' };
    }
    for (const { field, value, source } of answer.answers) this.print(answerLine(field, value, source));
    this.print('  Answered automatically (--yes or no terminal): accept');
    return { action: 'accept', content: answer.content };
  }

  async answerUrl(request: UrlElicitationRequest): Promise<CreateElicitationResponse> {
    const review = reviewUrl(request.url);
    this.print(`? ${this.agentLabel} asks you to open a URL: ${request.message}`);
    this.print(`  URL: ${review.url}`);
    if (review.host !== undefined) this.print(`  Host: ${review.host}`);
    for (const warning of review.warnings) this.print(`  Warning: ${warning}`);
    this.print('  Declined automatically: URL requests need a person (run in a terminal without --yes).');
    return { action: 'decline' };
  }

  async waitForUrlCompletion(): Promise<void> {
    // Never reached: URL requests are declined above, so there is nothing to wait for.
  }

  async answerPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    const title = request.toolCall.title ?? request.toolCall.toolCallId;
    this.print(`? ${this.agentLabel} asks permission: ${title}`);
    const option = choosePermissionAutomatically(request.options);
    if (option === undefined) {
      this.print('  No options offered: cancelled.');
      return { outcome: { outcome: 'cancelled' } };
    }
    this.print(`  Answered automatically (--yes or no terminal): ${option.name} [${option.kind}]`);
    return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
}
