import type {
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import type { Answerer, FormElicitationRequest, UrlElicitationRequest } from './answerer.js';
import {
  answerFormAutomatically,
  choosePermissionAutomatically,
  describeValue,
} from './automatic-answers.js';
import { readForm } from './form-model.js';
import { reviewUrl } from './url-safety.js';

/**
 * Answers without asking, for `--yes` and non-TTY runs: forms with their defaults (see `answerFormAutomatically`),
 * permissions with the first "allow" option, URL requests with a decline (nobody is there to open the URL). Every
 * answer is printed through `print`, so a script's log shows what was answered on the person's behalf.
 *
 * @example
 * ```ts
 * const answerer = new AutomaticAnswerer('Deploy Target', (line) => process.stdout.write(`${line}\n`));
 * ```
 */
export class AutomaticAnswerer implements Answerer {
  constructor(
    private readonly agentLabel: string,
    private readonly print: (line: string) => void,
  ) {}

  async answerForm(request: FormElicitationRequest): Promise<CreateElicitationResponse> {
    const model = readForm(request.requestedSchema);
    this.print(`? ${this.agentLabel} asks: ${request.message}`);
    const answer = answerFormAutomatically(model);
    if (answer.action === 'decline') {
      this.print(`  Declined automatically: ${answer.reason}.`);
      return { action: 'decline' };
    }
    for (const { field, value, source } of answer.answers) {
      this.print(`  ${field.label}: ${describeValue(field, value)} [${source}]`);
    }
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
