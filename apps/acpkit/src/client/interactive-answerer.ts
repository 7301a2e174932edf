import type { Readable, Writable } from 'node:stream';
import {
  type ChoiceOption,
  describeValue,
  type FieldValue,
  type FormField,
  type FormModel,
  fieldDefault,
  isSingleChoiceForm,
  parseFieldInput,
  readForm,
  validateFieldValue,
} from '@acpkit/testing/internal';
import {
  type CreateElicitationResponse,
  RequestError,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import { confirm, isCancel, log, multiselect, note, select, text } from '@clack/prompts';
import type { Answerer, FormElicitationRequest, UrlElicitationRequest } from './answerer.js';
import { reviewUrl } from './url-safety.js';

/** JSON-RPC code of a request the peer cancelled with `$/cancel_request`. */
const REQUEST_CANCELLED = -32800;

/** Where the prompts read keys and draw. */
export interface PromptStreams {
  readonly input: Readable;
  readonly output: Writable;
}

/** Returned by a field prompt when the person cancelled (Esc or Ctrl+C). */
const CANCELLED = Symbol('cancelled');
/** Select entries are option indexes, so no option token can collide with these two extra entries. */
const DECLINE_ENTRY = -1;
const LEAVE_EMPTY_ENTRY = -2;

type ReviewChoice = 'send' | 'edit' | 'decline';

/** An option label that always shows the description, not only when focused. */
function optionLabel(option: ChoiceOption): string {
  return option.description === undefined ? option.label : `${option.label} — ${option.description}`;
}

/**
 * Whether a field may really be left empty here: "(optional)" says so. A field with a default is prefilled (leaving
 * it changes nothing the person sees), and a yes/no question always gets yes or no, so neither is labelled.
 */
function canBeLeftEmpty(field: FormField): boolean {
  return !field.required && field.kind !== 'boolean' && fieldDefault(field) === undefined;
}

function fieldMessage(field: FormField): string {
  const optional = canBeLeftEmpty(field) ? ' (optional)' : '';
  return field.description === undefined
    ? `${field.label}${optional}`
    : `${field.label}${optional} — ${field.description}`;
}

/** The agent's question, then the one field's description: the prompt of a one-field form. */
function questionMessage(request: FormElicitationRequest, field: FormField): string {
  return field.description === undefined ? request.message : `${request.message}\n${field.description}`;
}

function textPlaceholder(field: FormField): string | undefined {
  if (field.kind === 'text') {
    if (field.format === 'date') return 'YYYY-MM-DD';
    if (field.format === 'date-time') return 'YYYY-MM-DDTHH:MM:SSZ';
    if (field.format === 'email') return 'name@example.com';
    if (field.format === 'uri') return 'https://…';
  }
  if (field.kind === 'number') {
    const range = [field.minimum, field.maximum].map((bound) => (bound === undefined ? '' : String(bound)));
    const kind = field.integer ? 'whole number' : 'number';
    return range[0] || range[1] ? `${kind} ${range[0]}…${range[1]}` : kind;
  }
  return canBeLeftEmpty(field) ? 'leave empty to skip' : undefined;
}

/**
 * Asks the person with `@clack/prompts`. A one-field form is one question: a single choice or a yes/no
 * (`askConfirm`) is one select whose last entry is Decline (picking is sending), and a text, number or multi-select
 * (`askText`, `askChoices`) is its prompt followed by one select showing the answer (Send / Edit / Decline). A
 * multi-field form asks each field (a select for single choices, a multiselect honouring `minItems`/`maxItems`,
 * validated text and number inputs, a confirm for booleans), then shows the answers for review (Send / Edit /
 * Decline). Only fields that can really be left empty are marked "(optional)". Esc (or Ctrl+C) in any prompt cancels
 * the form. Every request starts by naming the agent that sent it.
 *
 * @example
 * ```ts
 * const answerer = new InteractiveAnswerer('Deploy Target', { input: process.stdin, output: process.stdout });
 * ```
 */
export class InteractiveAnswerer implements Answerer {
  constructor(
    private readonly agentLabel: string,
    private readonly streams: PromptStreams,
  ) {}

  private common(signal: AbortSignal) {
    return { input: this.streams.input, output: this.streams.output, signal };
  }

  /**
   * Says so when the prompt closed because the agent withdrew its request (`$/cancel_request`). A prompt closed
   * because the connection was lost says nothing here: the client reports the loss once, after the form is gone.
   */
  private withdrawn(signal: AbortSignal): void {
    const reason: unknown = signal.reason;
    if (signal.aborted && reason instanceof RequestError && reason.code === REQUEST_CANCELLED) {
      log.warn('The agent withdrew the request.', { output: this.streams.output });
    }
  }

  async answerForm(request: FormElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    const model = readForm(request.requestedSchema);
    const output = this.streams.output;
    log.info(`Form from ${this.agentLabel} (Esc cancels it)`, { output });
    const unsupported = model.fields.filter((field) => field.kind === 'unsupported');
    for (const field of unsupported) {
      if (field.required) {
        log.warn(`This client cannot show the required field ${field.label} (${field.type}); declining.`, {
          output,
        });
        return { action: 'decline' };
      }
      log.warn(`Skipping the optional field ${field.label}: this client cannot show ${field.type} fields.`, {
        output,
      });
    }
    if (isSingleChoiceForm(model)) return this.answerSingleChoice(request, model.fields[0], signal);
    const [only, ...others] = model.fields.filter((field) => field.kind !== 'unsupported');
    if (only?.kind === 'boolean' && others.length === 0) return this.answerYesNo(request, only, signal);
    if (only !== undefined && others.length === 0) return this.answerOneField(request, only, signal);
    return this.answerFields(request, model, signal);
  }

  /**
   * A one-field yes/no form (`askConfirm`): one select, Yes / No / Decline, the default preselected. Picking is
   * sending: the answer is its own review, and Decline and Esc stay one key away.
   */
  private async answerYesNo(
    request: FormElicitationRequest,
    field: Extract<FormField, { kind: 'boolean' }>,
    signal: AbortSignal,
  ): Promise<CreateElicitationResponse> {
    const choice = await select<'yes' | 'no' | 'decline'>({
      ...this.common(signal),
      message: questionMessage(request, field),
      options: [
        { value: 'yes', label: 'Yes' },
        { value: 'no', label: 'No' },
        { value: 'decline', label: 'Decline', hint: 'answer neither' },
      ],
      initialValue: field.defaultValue === true ? 'yes' : 'no',
    });
    if (isCancel(choice)) {
      this.withdrawn(signal);
      return { action: 'cancel' };
    }
    if (choice === 'decline') return { action: 'decline' };
    return { action: 'accept', content: { [field.name]: choice === 'yes' } };
  }

  /**
   * A one-field text, number or multi-select form (`askText`, `askChoices`): the field asked with the agent's
   * question, then one short select that shows the answer and offers Send, Edit or Decline.
   */
  private async answerOneField(
    request: FormElicitationRequest,
    field: FormField,
    signal: AbortSignal,
  ): Promise<CreateElicitationResponse> {
    let value = fieldDefault(field);
    for (;;) {
      const answered = await this.askField(field, value, signal, questionMessage(request, field));
      if (answered === CANCELLED) {
        this.withdrawn(signal);
        return { action: 'cancel' };
      }
      value = answered;
      const review = await this.review(`Send ${describeValue(field, value)} to ${this.agentLabel}?`, signal);
      if (review === CANCELLED) return { action: 'cancel' };
      if (review === 'decline') return { action: 'decline' };
      if (review === 'send') {
        return value === undefined
          ? { action: 'accept', content: {} }
          : { action: 'accept', content: { [field.name]: value } };
      }
    }
  }

  /** The review select: Send / Edit / Decline; CANCELLED on Esc. */
  private async review(message: string, signal: AbortSignal): Promise<ReviewChoice | typeof CANCELLED> {
    const review = await select<ReviewChoice>({
      ...this.common(signal),
      message,
      options: [
        { value: 'send', label: 'Send' },
        { value: 'edit', label: 'Edit the answer' },
        { value: 'decline', label: 'Decline', hint: 'answer no without sending anything' },
      ],
    });
    if (isCancel(review)) {
      this.withdrawn(signal);
      return CANCELLED;
    }
    return review;
  }

  private async answerSingleChoice(
    request: FormElicitationRequest,
    field: Extract<FormField, { kind: 'single-choice' }>,
    signal: AbortSignal,
  ): Promise<CreateElicitationResponse> {
    const defaultIndex = field.options.findIndex((option) => option.value === field.defaultValue);
    const choice = await select<number>({
      ...this.common(signal),
      message: request.message,
      options: [
        ...field.options.map((option, index) => ({ value: index, label: optionLabel(option) })),
        { value: DECLINE_ENTRY, label: 'Decline', hint: 'answer no without choosing' },
      ],
      ...(defaultIndex === -1 ? {} : { initialValue: defaultIndex }),
    });
    if (isCancel(choice)) {
      this.withdrawn(signal);
      return { action: 'cancel' };
    }
    const option = field.options[choice];
    if (option === undefined) return { action: 'decline' };
    return { action: 'accept', content: { [field.name]: option.value } };
  }

  private async answerFields(
    request: FormElicitationRequest,
    model: FormModel,
    signal: AbortSignal,
  ): Promise<CreateElicitationResponse> {
    const output = this.streams.output;
    const heading = [request.message, model.title, model.description].filter(Boolean).join('\n');
    note(heading, 'The agent asks', { output });
    const values = new Map<string, FieldValue | undefined>();
    for (const field of model.fields) values.set(field.name, fieldDefault(field));
    for (;;) {
      for (const field of model.fields) {
        if (field.kind === 'unsupported') continue;
        const value = await this.askField(field, values.get(field.name), signal);
        if (value === CANCELLED) {
          this.withdrawn(signal);
          return { action: 'cancel' };
        }
        values.set(field.name, value);
      }
      const summary = model.fields
        .filter((field) => field.kind !== 'unsupported')
        .map((field) => `${field.label}: ${describeValue(field, values.get(field.name))}`)
        .join('\n');
      note(summary, 'Your answers', { output });
      const review = await this.review(`Send these answers to ${this.agentLabel}?`, signal);
      if (review === CANCELLED) return { action: 'cancel' };
      if (review === 'decline') return { action: 'decline' };
      if (review === 'send') {
        const content: Record<string, FieldValue> = {};
        for (const [name, value] of values) if (value !== undefined) content[name] = value;
        return { action: 'accept', content };
      }
    }
  }

  /**
   * Asks one field (its label as the prompt, unless `message` is given); returns the value (undefined = left empty)
   * or CANCELLED when the person cancelled.
   */
  private async askField(
    field: FormField,
    current: FieldValue | undefined,
    signal: AbortSignal,
    message: string = fieldMessage(field),
  ): Promise<FieldValue | undefined | typeof CANCELLED> {
    const common = this.common(signal);
    switch (field.kind) {
      case 'single-choice': {
        const options = field.options.map((option, index) => ({ value: index, label: optionLabel(option) }));
        if (canBeLeftEmpty(field)) options.push({ value: LEAVE_EMPTY_ENTRY, label: '(leave empty)' });
        const currentIndex = field.options.findIndex((option) => option.value === current);
        const initialValue =
          currentIndex !== -1 ? currentIndex : canBeLeftEmpty(field) ? LEAVE_EMPTY_ENTRY : 0;
        const choice = await select<number>({ ...common, message, options, initialValue });
        if (isCancel(choice)) return CANCELLED;
        return field.options[choice]?.value;
      }
      case 'multi-choice': {
        let selected = Array.isArray(current) ? current : [];
        for (;;) {
          const limits = [
            field.minItems === undefined ? '' : `at least ${field.minItems}`,
            field.maxItems === undefined ? '' : `at most ${field.maxItems}`,
          ].filter(Boolean);
          const choice = await multiselect<string>({
            ...common,
            message: limits.length > 0 ? `${message} (choose ${limits.join(', ')})` : message,
            options: field.options.map((option) => ({ value: option.value, label: optionLabel(option) })),
            initialValues: selected,
            required: (field.minItems ?? 0) > 0,
          });
          if (isCancel(choice)) return CANCELLED;
          // clack's multiselect has no validate hook, so counts are checked here and the prompt asked again.
          const problem = validateFieldValue(field, choice);
          if (problem === undefined) return choice;
          log.error(problem, { output: this.streams.output });
          selected = choice;
        }
      }
      case 'boolean': {
        const initialValue = typeof current === 'boolean' ? current : false;
        const answer = await confirm({ ...common, message, initialValue });
        if (isCancel(answer)) return CANCELLED;
        return answer;
      }
      case 'text':
      case 'number': {
        const placeholder = textPlaceholder(field);
        const answer = await text({
          ...common,
          message,
          ...(placeholder === undefined ? {} : { placeholder }),
          ...(current === undefined ? {} : { initialValue: String(current) }),
          validate: (input) => {
            const parsed = parseFieldInput(field, input ?? '');
            return 'error' in parsed ? parsed.error : undefined;
          },
        });
        if (isCancel(answer)) return CANCELLED;
        const parsed = parseFieldInput(field, answer ?? '');
        return 'error' in parsed ? undefined : parsed.value;
      }
      case 'unsupported':
        return undefined;
    }
  }

  async answerUrl(request: UrlElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    const output = this.streams.output;
    const review = reviewUrl(request.url);
    log.info(`${this.agentLabel} asks you to open a URL (Esc cancels)`, { output });
    const lines = [request.message, '', `URL:  ${review.url}`];
    if (review.host !== undefined) lines.push(`Host: ${review.host}`);
    if (review.unicodeHost !== undefined) lines.push(`      (displays as ${review.unicodeHost})`);
    note(lines.join('\n'), 'URL request', { output });
    for (const warning of review.warnings) log.warn(warning, { output });
    const choice = await select<'accept' | 'decline'>({
      ...this.common(signal),
      message: 'Will you open this URL yourself? This client never opens or fetches it.',
      options: [
        { value: 'accept', label: 'Yes, I will open it myself', hint: 'copy it into your browser' },
        { value: 'decline', label: 'Decline' },
      ],
      initialValue: 'decline',
    });
    if (isCancel(choice)) {
      this.withdrawn(signal);
      return { action: 'cancel' };
    }
    return { action: choice };
  }

  async waitForUrlCompletion(request: UrlElicitationRequest, completed: AbortSignal): Promise<void> {
    const output = this.streams.output;
    const choice = await select({
      ...this.common(completed),
      message: `Waiting for ${this.agentLabel} to confirm the URL flow is complete…`,
      options: [{ value: 'continue', label: 'Continue without waiting' }],
    });
    if (completed.aborted) log.success(`${this.agentLabel} reports the URL flow is complete.`, { output });
    else if (isCancel(choice) || choice === 'continue')
      log.info(`Stopped waiting for ${request.url}.`, { output });
  }

  async answerPermission(
    request: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const output = this.streams.output;
    log.info(`${this.agentLabel} asks for permission (Esc cancels)`, { output });
    const choice = await select<string>({
      ...this.common(signal),
      message: request.toolCall.title ?? `Allow tool call ${request.toolCall.toolCallId}?`,
      options: request.options.map((option) => ({
        value: option.optionId,
        label: option.name,
        hint: option.kind.replace('_', ' '),
      })),
    });
    if (isCancel(choice)) {
      this.withdrawn(signal);
      return { outcome: { outcome: 'cancelled' } };
    }
    return { outcome: { outcome: 'selected', optionId: choice } };
  }
}
