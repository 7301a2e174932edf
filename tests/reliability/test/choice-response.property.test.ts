import {
  InvalidElicitationResponseError,
  InvalidElicitationResponseErrorCode,
  parseChoiceResponse,
} from '@acpkit/choice-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NIGHTLY, PROPERTY_RUNS } from './support/property-runs.js';

const knownCodes = new Set<string>(Object.values(InvalidElicitationResponseErrorCode));

/** Tokens that look issued, almost issued, or not at all: the edge of what must be accepted. */
const tokenLike = fc.oneof(
  fc.nat({ max: 12 }).map((index) => `choice_${index}`),
  fc.constantFrom(
    'choice_01',
    'choice_-1',
    'choice_1.0',
    'choice_ 1',
    'Choice_1',
    'choice_²',
    'choice_',
    ' choice_0',
  ),
  fc.string(),
  fc.jsonValue(),
);

/** Any JSON value, plus answers shaped like real ones with hostile fields, so both halves get many cases. */
const anyResponse = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      action: fc.oneof(fc.constantFrom('accept', 'decline', 'cancel', '_custom', 'ACCEPT'), fc.jsonValue()),
      content: fc.oneof(
        fc.jsonValue(),
        fc.dictionary(fc.string(), fc.jsonValue()).map((extra) => ({ ...extra })),
        fc.record({ choice: tokenLike }, { requiredKeys: [] }),
      ),
      _meta: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
  // Well-formed accepts with tokens in and just out of range and extra keys the parser must ignore.
  fc
    .record({ index: fc.nat({ max: 8 }), extra: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }) })
    .map(({ index, extra }) => ({ action: 'accept', content: { ...extra, choice: `choice_${index}` } })),
);

describe('parseChoiceResponse (property)', () => {
  it(
    'returns a result or throws InvalidElicitationResponseError for any JSON value, and accepts only offered tokens',
    () => {
      const seen = { accepted: 0, declined: 0, cancelled: 0, invalid: 0 };
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 6 }), anyResponse, (choiceCount, response) => {
          const choices = Array.from({ length: choiceCount }, (_, index) => ({ label: `Option ${index}` }));
          let parsed: ReturnType<typeof parseChoiceResponse<(typeof choices)[number]>>;
          try {
            parsed = parseChoiceResponse(response, choices);
          } catch (error) {
            // Never another throw: only the documented error class with a documented code.
            expect(InvalidElicitationResponseError.isInstance(error)).toBe(true);
            expect(knownCodes.has((error as InvalidElicitationResponseError).code)).toBe(true);
            expect((error as InvalidElicitationResponseError).response).toBe(response);
            seen.invalid += 1;
            return;
          }
          seen[parsed.status] += 1;
          const record = response as { action?: unknown; content?: { choice?: unknown } };
          if (parsed.status === 'accepted') {
            // Never an accepted value that was not offered: the token is exactly the issued one for that index.
            expect(record.action).toBe('accept');
            expect(parsed.index).toBeGreaterThanOrEqual(0);
            expect(parsed.index).toBeLessThan(choiceCount);
            expect(record.content?.choice).toBe(`choice_${parsed.index}`);
            expect(parsed.choice).toBe(choices[parsed.index]);
          } else {
            expect(record.action).toBe(parsed.status === 'declined' ? 'decline' : 'cancel');
          }
        }),
        { numRuns: PROPERTY_RUNS },
      );
      // The generators must reach every outcome often, or the property proves little.
      for (const count of Object.values(seen)) expect(count).toBeGreaterThan(PROPERTY_RUNS / 100);
    },
    NIGHTLY ? 600_000 : 60_000,
  );
});
