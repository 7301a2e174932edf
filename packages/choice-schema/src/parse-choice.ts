import { CHOICE_PROPERTY } from './compile-choice.js';
import { InvalidElicitationResponseError, InvalidElicitationResponseErrorCode } from './errors.js';

/**
 * What a client's answer to a choice elicitation means, before typed values are attached.
 *
 * @example
 * ```ts
 * import type { ParsedChoiceResponse } from '@acpkit/choice-schema';
 *
 * const parsed: ParsedChoiceResponse<{ label: string }> = { status: 'declined' };
 * ```
 */
export type ParsedChoiceResponse<Choice> =
  | { readonly status: 'accepted'; readonly index: number; readonly choice: Choice }
  | { readonly status: 'declined' }
  | { readonly status: 'cancelled' };

// ASCII digits only and no leading zero, so `choice_01`, `choice_²` and `choice_①` are never tokens.
const TOKEN_PATTERN = /^choice_(0|[1-9][0-9]*)$/;
const MAX_ACTION_LENGTH = 100;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Renders an unknown action for an error message: strings verbatim, other values as JSON; both truncated. */
function describeAction(action: unknown): string {
  const text = typeof action === 'string' ? action : (JSON.stringify(action) ?? String(action));
  return text.length > MAX_ACTION_LENGTH ? `${text.slice(0, MAX_ACTION_LENGTH)}…` : text;
}

/**
 * Returns the index encoded by `token` when it is a token issued for `choiceCount` choices, otherwise `undefined`.
 *
 * @example
 * ```ts
 * import { choiceIndexOf } from '@acpkit/choice-schema';
 *
 * choiceIndexOf('choice_1', 2); // 1
 * choiceIndexOf('choice_01', 2); // undefined
 * ```
 */
export function choiceIndexOf(token: unknown, choiceCount: number): number | undefined {
  if (typeof token !== 'string') return undefined;
  const match = TOKEN_PATTERN.exec(token);
  if (match === null) return undefined;
  const index = Number(match[1]);
  return index < choiceCount ? index : undefined;
}

/**
 * What a client's elicitation answer says, before its `content` is checked: `accept` (with the raw `content`, which
 * may be absent), `decline` or `cancel`.
 *
 * @example
 * ```ts
 * import type { ElicitationAction } from '@acpkit/choice-schema';
 *
 * const action: ElicitationAction = { action: 'accept', content: { choice: 'choice_0' } };
 * ```
 */
export type ElicitationAction =
  | { readonly action: 'accept'; readonly content: unknown }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/**
 * Reads the action of a client's answer to any elicitation. Only `accept`, `decline` and `cancel` are known; a
 * custom or future action (`_later`) and a response that is not an object are never mistaken for one of them.
 *
 * @throws {@link InvalidElicitationResponseError} with code `UNSUPPORTED_ACTION` (the raw response on the error).
 * @example
 * ```ts
 * import { parseElicitationAction } from '@acpkit/choice-schema';
 *
 * parseElicitationAction({ action: 'decline' }); // { action: 'decline' }
 * ```
 */
export function parseElicitationAction(response: unknown): ElicitationAction {
  const action = isRecord(response) ? response.action : undefined;
  switch (action) {
    case 'accept':
      return { action: 'accept', content: (response as Record<string, unknown>).content };
    case 'decline':
      return { action: 'decline' };
    case 'cancel':
      return { action: 'cancel' };
    default:
      throw new InvalidElicitationResponseError(
        InvalidElicitationResponseErrorCode.UnsupportedAction,
        `The ACP client returned an unsupported elicitation action: '${describeAction(action)}'.`,
        response,
      );
  }
}

/**
 * Parses the client's answer to a choice elicitation against the tokens issued for these choices. `accept` is valid
 * only with an object `content` whose `choice` is an issued token (other keys are ignored, and the schema default
 * never stands in for a missing or bad token); `decline` and `cancel` map to their statuses.
 *
 * @throws {@link InvalidElicitationResponseError} with code `INVALID_CHOICE` for an `accept` without a valid token,
 * and `UNSUPPORTED_ACTION` for any other action or a response that is not an object. The raw response is kept on
 * the error.
 * @example
 * ```ts
 * import { parseChoiceResponse } from '@acpkit/choice-schema';
 *
 * const choices = [{ label: 'Preview' }, { label: 'Production' }];
 * const parsed = parseChoiceResponse({ action: 'accept', content: { choice: 'choice_1' } }, choices);
 * if (parsed.status === 'accepted') console.log(parsed.choice.label); // 'Production'
 * ```
 */
export function parseChoiceResponse<Choice>(
  response: unknown,
  choices: readonly Choice[],
): ParsedChoiceResponse<Choice> {
  const parsed = parseElicitationAction(response);
  switch (parsed.action) {
    case 'accept': {
      const { content } = parsed;
      const index = isRecord(content) ? choiceIndexOf(content[CHOICE_PROPERTY], choices.length) : undefined;
      if (index === undefined) {
        throw new InvalidElicitationResponseError(
          InvalidElicitationResponseErrorCode.InvalidChoice,
          'The ACP client accepted the elicitation without a valid choice.',
          response,
        );
      }
      return { status: 'accepted', index, choice: choices[index] as Choice };
    }
    case 'decline':
      return { status: 'declined' };
    case 'cancel':
      return { status: 'cancelled' };
  }
}
