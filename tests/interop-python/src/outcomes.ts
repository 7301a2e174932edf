import { isDeepStrictEqual } from 'node:util';
import type { ChoiceOutcome } from './choice-agents.js';

/**
 * One line naming an outcome, as the compatibility tables write it: `accepted <value as JSON>`, `declined`,
 * `cancelled`, or `<error class>[ <code>]: <first line of the message>`.
 */
export function summarize(outcome: ChoiceOutcome): string {
  switch (outcome.outcome) {
    case 'accepted':
      return `accepted ${JSON.stringify(outcome.value)}`;
    case 'declined':
    case 'cancelled':
      return outcome.outcome;
    case 'error': {
      const code = outcome.code === undefined ? '' : ` ${outcome.code}`;
      return `${outcome.type}${code}: ${outcome.message.split('\n')[0]}`;
    }
  }
}

/**
 * Whether our outcome is the Python one: the same status and value, or, for an error, the error class that
 * `errorClasses` maps Python's to, with the same message (and the same JSON-RPC code when Python's has one).
 */
export function sameOutcome(
  python: ChoiceOutcome,
  typescript: ChoiceOutcome,
  errorClasses: ReadonlyMap<string, string>,
): boolean {
  if (python.outcome === 'error' && typescript.outcome === 'error') {
    return (
      (errorClasses.get(python.type) ?? python.type) === typescript.type &&
      python.message === typescript.message &&
      (typeof python.code !== 'number' || python.code === typescript.code)
    );
  }
  return isDeepStrictEqual(python, typescript);
}
