// The default title of a session: the first line of its first prompt, cleaned for a history panel.

/** The longest default title, in characters; longer first lines end with `…`. */
export const MAX_DEFAULT_TITLE_LENGTH = 80;

/**
 * A title from prompt text: its first non-blank line, whitespace collapsed, control characters dropped, at most
 * {@link MAX_DEFAULT_TITLE_LENGTH} characters; `null` when the text has no visible line.
 *
 * @example
 * ```ts
 * import { defaultSessionTitle } from '@acpkit/sessions';
 *
 * defaultSessionTitle('  Fix the build\nIt fails on CI.'); // 'Fix the build'
 * ```
 */
export function defaultSessionTitle(text: string): string | null {
  for (const line of text.split(/\r?\n/)) {
    const cleaned = line
      // biome-ignore lint/suspicious/noControlCharactersInRegex: dropping control characters is the point.
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (cleaned === '') continue;
    const characters = [...cleaned];
    return characters.length > MAX_DEFAULT_TITLE_LENGTH
      ? `${characters.slice(0, MAX_DEFAULT_TITLE_LENGTH - 1).join('')}…`
      : cleaned;
  }
  return null;
}
