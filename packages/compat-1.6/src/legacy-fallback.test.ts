import {
  AcpSessionContext,
  ElicitationAccepted,
  ElicitationCancelled,
  type ElicitationClient,
  ElicitationDeclined,
  InvalidElicitationFallbackError,
} from '@acpkit/elicitation';
import { describe, expect, it, vi } from 'vitest';
import { LEGACY_FALLBACK_WARNING_CODE, legacyFallback } from './legacy-fallback.js';

/** A session whose client never advertised form elicitation, so askChoice always runs the fallback. */
function unsupportedSession(): { session: AcpSessionContext; requests: unknown[] } {
  const requests: unknown[] = [];
  const client: ElicitationClient = {
    request: async (method, params) => {
      requests.push({ method, params });
      return undefined;
    },
    notify: async () => {},
  };
  return { session: new AcpSessionContext({ sessionId: 's', client, clientCapabilities: {} }), requests };
}

const targets = [
  { value: 'preview', label: 'Preview' },
  { value: 'production', label: 'Production' },
] as const;

// The warning is once per process: these tests run in file order, and the first one sees the only warning.
describe('legacyFallback', () => {
  it('emits one DeprecationWarning (ACPKIT_DEP001) for the first plain value, then none', async () => {
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const { session, requests } = unsupportedSession();
    const first = await session.askChoice('Q', targets, {
      fallback: legacyFallback(() => 'production' as const),
    });
    const second = await session.askChoice('Q', targets, {
      fallback: legacyFallback(async () => 'preview' as const),
    });
    expect(first).toMatchObject({ status: 'accepted', value: 'production', source: 'fallback' });
    expect(second).toMatchObject({ status: 'accepted', value: 'preview' });
    expect(emitWarning).toHaveBeenCalledTimes(1);
    const [message, options] = emitWarning.mock.calls[0] as [string, { type: string; code: string }];
    expect(options).toEqual({ type: 'DeprecationWarning', code: LEGACY_FALLBACK_WARNING_CODE });
    expect(LEGACY_FALLBACK_WARNING_CODE).toBe('ACPKIT_DEP001');
    expect(message).toContain('plain value');
    expect(message).toContain('ElicitationResult variant');
    expect(requests).toEqual([]);
  });

  it('returns the offered value, not the equal value the fallback returned', async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const offered = { id: 2 };
    const { session } = unsupportedSession();
    const result = await session.askChoice(
      'Q',
      [
        { value: { id: 1 }, label: 'One' },
        { value: offered, label: 'Two' },
      ],
      { fallback: legacyFallback(() => ({ id: 2 })), equals: (a, b) => a.id === (b as { id: number }).id },
    );
    expect((result as ElicitationAccepted<unknown>).value).toBe(offered);
  });

  it('validates a plain value like any accepted fallback value', async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const { session } = unsupportedSession();
    const error = await session
      // An untyped 1.6.0 caller: the type system now refuses a value that was not offered.
      .askChoice('Q', targets, {
        fallback: legacyFallback(() => 'staging' as (typeof targets)[number]['value']),
      })
      .catch((caught: unknown) => caught);
    expect(InvalidElicitationFallbackError.isInstance(error)).toBe(true);
    expect((error as InvalidElicitationFallbackError).code).toBe('FALLBACK_VALUE_NOT_OFFERED');
    expect((error as Error).message).toBe('The accepted elicitation fallback value was not offered.');
  });

  it('treats null and undefined as real values when offered, and rejects them when not', async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const { session } = unsupportedSession();
    const withNull = await session.askChoice('Q', [{ value: null, label: 'Nothing' }, ...targets], {
      fallback: legacyFallback(() => null),
    });
    expect(withNull).toMatchObject({ status: 'accepted', value: null });
    const withUndefined = await session.askChoice('Q', [{ value: undefined, label: 'Unset' }], {
      fallback: legacyFallback(async () => undefined),
    });
    expect(withUndefined).toBeInstanceOf(ElicitationAccepted);
    expect((withUndefined as ElicitationAccepted<unknown>).value).toBeUndefined();
    const untypedNull = legacyFallback<(typeof targets)[number]['value']>(() => null as never);
    await expect(session.askChoice('Q', targets, { fallback: untypedNull })).rejects.toSatisfy(
      InvalidElicitationFallbackError.isInstance,
    );
  });

  it('passes a result variant through untouched, without a warning', async () => {
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const declined = new ElicitationDeclined();
    const cancelled = new ElicitationCancelled();
    const accepted = new ElicitationAccepted('preview');
    expect(await legacyFallback(() => declined)()).toBe(declined);
    expect(await legacyFallback(async () => cancelled)()).toBe(cancelled);
    expect(await legacyFallback(() => accepted)()).toBe(accepted);
    const { session } = unsupportedSession();
    expect(await session.askChoice('Q', targets, { fallback: legacyFallback(() => declined) })).toBe(
      declined,
    );
    expect(emitWarning).not.toHaveBeenCalled();
  });

  it('propagates a fallback exception unchanged', async () => {
    const failure = new Error('no terminal');
    const { session } = unsupportedSession();
    await expect(
      session.askChoice('Q', targets, {
        fallback: legacyFallback(() => {
          throw failure;
        }),
      }),
    ).rejects.toBe(failure);
  });

  it('is what the core error message points to for plain values', async () => {
    const { session } = unsupportedSession();
    const plain = (() => 'preview') as unknown as () => ElicitationDeclined;
    await expect(session.askChoice('Q', targets, { fallback: plain })).rejects.toThrow(
      "legacyFallback from '@acpkit/compat-1.6'",
    );
  });
});
