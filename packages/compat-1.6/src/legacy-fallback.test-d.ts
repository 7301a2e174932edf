import { type AcpSessionContext, ElicitationDeclined } from '@acpkit/elicitation';
import { describe, expectTypeOf, it } from 'vitest';
import { legacyFallback } from './legacy-fallback.js';

declare const session: AcpSessionContext;
const targets = [
  { value: 'preview', label: 'Preview' },
  { value: 'production', label: 'Production' },
] as const;

describe('legacyFallback types', () => {
  it('takes its value type from the choices', async () => {
    const result = await session.askChoice('Q', targets, { fallback: legacyFallback(() => 'preview') });
    if (result.status === 'accepted') expectTypeOf(result.value).toEqualTypeOf<'preview' | 'production'>();
    // An async function widens a returned literal: `as const` keeps it an offered value.
    void session.askChoice('Q', targets, { fallback: legacyFallback(async () => 'production' as const) });
    void session.askChoice('Q', targets, { fallback: legacyFallback(() => new ElicitationDeclined()) });
  });

  it('refuses a plain value that was not offered', () => {
    // @ts-expect-error 'staging' is not an offered value
    void session.askChoice('Q', targets, { fallback: legacyFallback(() => 'staging') });
  });
});
