// An elicitation form: one control per field ACP's schema has, checked before submit by the same rules as the
// terminal client (@acpkit/form-schema), with Send, Decline and Cancel.
import {
  type FieldValue,
  type FormField,
  fieldDefault,
  parseFieldInput,
  validateFieldValue,
} from '@acpkit/form-schema';
import { useRef, useState } from 'preact/hooks';
import type { FormEntry } from '../state/conversation.js';

/** Up to this many options a single choice is a radio group; more become a select. */
export const RADIO_LIMIT = 5;

type Answers = Record<string, FieldValue | undefined>;

/** The text a text or number field starts with. */
function initialText(field: FormField): string {
  const value = fieldDefault(field);
  return value === undefined ? '' : String(value);
}

function readAll(fields: readonly FormField[], texts: Record<string, string>, answers: Answers) {
  const content: Record<string, FieldValue> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    let value: FieldValue | undefined;
    let error: string | undefined;
    if (field.kind === 'text' || field.kind === 'number') {
      const parsed = parseFieldInput(field, texts[field.name] ?? '');
      if ('error' in parsed) error = parsed.error;
      else value = parsed.value;
    } else {
      value = answers[field.name];
      if (field.kind === 'multi-choice' && Array.isArray(value) && value.length === 0 && !field.required) {
        value = undefined;
      }
      error = validateFieldValue(field, value);
    }
    if (error !== undefined) errors[field.name] = error;
    else if (value !== undefined) content[field.name] = value;
  }
  return { content, errors };
}

function Description({ id, text }: { id: string; text: string | undefined }) {
  return text === undefined ? null : (
    <p class="field-description" id={id}>
      {text}
    </p>
  );
}

interface FieldProps {
  readonly field: FormField;
  readonly id: string;
  readonly text: string;
  readonly value: FieldValue | undefined;
  readonly error: string | undefined;
  readonly onText: (text: string) => void;
  readonly onValue: (value: FieldValue | undefined) => void;
}

const INPUT_TYPES: Record<string, 'email' | 'url' | 'date'> = { email: 'email', uri: 'url', date: 'date' };
const PLACEHOLDERS: Record<string, string> = {
  'date-time': 'YYYY-MM-DDTHH:MM:SSZ',
  date: 'YYYY-MM-DD',
  uri: 'https://…',
};

function FieldControl({ field, id, text, value, error, onText, onValue }: FieldProps) {
  const describedBy = [
    field.description === undefined ? '' : `${id}-description`,
    error === undefined ? '' : `${id}-error`,
  ]
    .filter(Boolean)
    .join(' ');
  const common = {
    'aria-invalid': error === undefined ? undefined : ('true' as const),
    'aria-describedby': describedBy || undefined,
    'aria-required': field.required ? ('true' as const) : undefined,
  };
  const label = (
    <>
      {field.label}
      {field.required ? (
        <span class="required" aria-hidden="true">
          {' '}
          *
        </span>
      ) : null}
    </>
  );
  switch (field.kind) {
    case 'text':
    case 'number':
      return (
        <div class="field">
          <label for={id}>{label}</label>
          <Description id={`${id}-description`} text={field.description} />
          <input
            id={id}
            name={field.name}
            // The browser's own input kinds (a date picker, an email keyboard), checked by our rules, not the browser's.
            type={(field.kind === 'text' ? (INPUT_TYPES[field.format ?? ''] ?? 'text') : 'text') as 'text'}
            inputMode={field.kind === 'number' ? (field.integer ? 'numeric' : 'decimal') : undefined}
            placeholder={field.kind === 'text' ? PLACEHOLDERS[field.format ?? ''] : undefined}
            value={text}
            onInput={(event) => onText((event.currentTarget as HTMLInputElement).value)}
            {...common}
          />
          {field.kind === 'text' && (field.minLength !== undefined || field.maxLength !== undefined) ? (
            <p class="field-hint">
              {field.minLength !== undefined ? `At least ${field.minLength} characters. ` : ''}
              {field.maxLength !== undefined ? `At most ${field.maxLength} characters.` : ''}
            </p>
          ) : null}
          {field.kind === 'number' && (field.minimum !== undefined || field.maximum !== undefined) ? (
            <p class="field-hint">
              {field.integer ? 'A whole number' : 'A number'}
              {field.minimum !== undefined ? ` from ${field.minimum}` : ''}
              {field.maximum !== undefined ? ` up to ${field.maximum}` : ''}.
            </p>
          ) : null}
          <FieldError id={`${id}-error`} error={error} />
        </div>
      );
    case 'boolean': {
      const choices: { label: string; value: boolean | undefined }[] = [
        { label: 'Yes', value: true },
        { label: 'No', value: false },
        ...(field.required ? [] : [{ label: 'No answer', value: undefined }]),
      ];
      return (
        <fieldset class="field" {...common}>
          <legend>{label}</legend>
          <Description id={`${id}-description`} text={field.description} />
          {choices.map((choice) => (
            <label class="choice" key={choice.label}>
              <input
                type="radio"
                name={id}
                checked={value === choice.value}
                onChange={() => onValue(choice.value)}
              />
              {choice.label}
            </label>
          ))}
          <FieldError id={`${id}-error`} error={error} />
        </fieldset>
      );
    }
    case 'single-choice':
      if (field.options.length <= RADIO_LIMIT) {
        return (
          <fieldset class="field" {...common}>
            <legend>{label}</legend>
            <Description id={`${id}-description`} text={field.description} />
            {field.options.map((option) => (
              <label class="choice" key={option.value}>
                <input
                  type="radio"
                  name={id}
                  value={option.value}
                  checked={value === option.value}
                  onChange={() => onValue(option.value)}
                />
                <span>
                  {option.label}
                  {option.description !== undefined ? (
                    <span class="option-description"> — {option.description}</span>
                  ) : null}
                </span>
              </label>
            ))}
            <FieldError id={`${id}-error`} error={error} />
          </fieldset>
        );
      }
      return (
        <div class="field">
          <label for={id}>{label}</label>
          <Description id={`${id}-description`} text={field.description} />
          <select
            id={id}
            name={field.name}
            value={typeof value === 'string' ? value : ''}
            onChange={(event) => {
              const selected = (event.currentTarget as HTMLSelectElement).value;
              onValue(selected === '' ? undefined : selected);
            }}
            {...common}
          >
            <option value="">{field.required ? 'Choose…' : 'No answer'}</option>
            {field.options.map((option) => (
              <option key={option.value} value={option.value} title={option.description}>
                {option.label}
              </option>
            ))}
          </select>
          <FieldError id={`${id}-error`} error={error} />
        </div>
      );
    case 'multi-choice': {
      const selected = Array.isArray(value) ? value : [];
      return (
        <fieldset class="field" {...common}>
          <legend>{label}</legend>
          <Description id={`${id}-description`} text={field.description} />
          <div class={field.options.length > 8 ? 'choices scroll' : 'choices'}>
            {field.options.map((option) => (
              <label class="choice" key={option.value}>
                <input
                  type="checkbox"
                  name={id}
                  value={option.value}
                  checked={selected.includes(option.value)}
                  onChange={(event) => {
                    const on = (event.currentTarget as HTMLInputElement).checked;
                    onValue(
                      on
                        ? field.options
                            .map((o) => o.value)
                            .filter((v) => v === option.value || selected.includes(v))
                        : selected.filter((v) => v !== option.value),
                    );
                  }}
                />
                <span>
                  {option.label}
                  {option.description !== undefined ? (
                    <span class="option-description"> — {option.description}</span>
                  ) : null}
                </span>
              </label>
            ))}
          </div>
          {field.minItems !== undefined || field.maxItems !== undefined ? (
            <p class="field-hint">
              {field.minItems !== undefined ? `Choose at least ${field.minItems}. ` : ''}
              {field.maxItems !== undefined ? `Choose at most ${field.maxItems}.` : ''}
            </p>
          ) : null}
          <FieldError id={`${id}-error`} error={error} />
        </fieldset>
      );
    }
    case 'unsupported':
      return (
        <div class="field unsupported">
          <p>
            {field.label}: a field of type {field.type} this client cannot show. Decline the form to answer
            without it.
          </p>
        </div>
      );
  }
}

function FieldError({ id, error }: { id: string; error: string | undefined }) {
  return error === undefined ? null : (
    <p class="field-error" id={id} role="alert">
      {error}
    </p>
  );
}

export interface FormViewProps {
  readonly entry: FormEntry;
  readonly onAnswer: (action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>) => void;
}

/** The form of one `elicitation/create` request; once answered, what was answered. */
export function FormView({ entry, onAnswer }: FormViewProps) {
  const fields = entry.model.fields;
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((field) => [field.name, initialText(field)])),
  );
  const [answers, setAnswers] = useState<Answers>(() =>
    Object.fromEntries(fields.map((field) => [field.name, fieldDefault(field)])),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const formRef = useRef<HTMLFormElement>(null);
  const headingId = `${entry.key}-title`;
  if (entry.settled !== undefined) {
    return (
      <section class="card form settled" aria-labelledby={headingId}>
        <h3 id={headingId}>{entry.model.title ?? 'Form'}</h3>
        <p class="message">{entry.message}</p>
        <p class="outcome">{entry.settled.summary}</p>
      </section>
    );
  }
  const hasUnsupported = fields.some((field) => field.kind === 'unsupported');
  const submit = (event: Event) => {
    event.preventDefault();
    const { content, errors: found } = readAll(fields, texts, answers);
    setErrors(found);
    const first = fields.find((field) => found[field.name] !== undefined);
    if (first !== undefined) {
      // The first field to fix gets the focus, so a keyboard or screen-reader user lands on it.
      requestAnimationFrame(() => {
        const control = formRef.current?.querySelector<HTMLElement>(
          `[name="${CSS.escape(first.name)}"], [name="${CSS.escape(`${entry.key}-${fields.indexOf(first)}`)}"]`,
        );
        control?.focus();
      });
      return;
    }
    onAnswer('accept', content);
  };
  return (
    <section class="card form" aria-labelledby={headingId}>
      <h3 id={headingId}>{entry.model.title ?? 'The agent asks'}</h3>
      {entry.message !== '' ? <p class="message">{entry.message}</p> : null}
      {entry.model.description !== undefined ? (
        <p class="field-description">{entry.model.description}</p>
      ) : null}
      <form ref={formRef} noValidate onSubmit={submit}>
        {fields.map((field, index) => {
          const id = `${entry.key}-${index}`;
          return (
            <FieldControl
              key={field.name}
              field={field}
              id={id}
              text={texts[field.name] ?? ''}
              value={answers[field.name]}
              error={errors[field.name]}
              onText={(text) => setTexts((previous) => ({ ...previous, [field.name]: text }))}
              onValue={(value) => setAnswers((previous) => ({ ...previous, [field.name]: value }))}
            />
          );
        })}
        {Object.keys(errors).length > 0 ? (
          <p class="form-error" role="alert">
            {Object.keys(errors).length === 1
              ? 'One answer needs fixing.'
              : `${Object.keys(errors).length} answers need fixing.`}
          </p>
        ) : null}
        <div class="actions">
          <button type="submit" class="primary" disabled={hasUnsupported}>
            Send
          </button>
          <button type="button" onClick={() => onAnswer('decline')}>
            Decline
          </button>
          <button type="button" onClick={() => onAnswer('cancel')}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
