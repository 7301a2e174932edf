import {
  AcpSessionContext,
  type ElicitationClient,
  InvalidElicitationResponseError,
  InvalidElicitationResponseErrorCode,
} from '@acpkit/elicitation';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NIGHTLY, PROPERTY_RUNS } from './support/property-runs.js';

const knownCodes = new Set<string>(Object.values(InvalidElicitationResponseErrorCode));

/** Any JSON value, shaped answers with hostile fields, and well-formed accepts in and out of range. */
const anyAnswer = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      action: fc.oneof(fc.constantFrom('accept', 'decline', 'cancel', '_custom', 'Accept'), fc.jsonValue()),
      content: fc.oneof(fc.jsonValue(), fc.record({ choice: fc.oneof(fc.string(), fc.jsonValue()) })),
    },
    { requiredKeys: [] },
  ),
  fc
    .record({ index: fc.nat({ max: 6 }), extra: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }) })
    .map(({ index, extra }) => ({ action: 'accept', content: { ...extra, choice: `choice_${index}` } })),
);

describe('AcpSessionContext.askChoice (property)', () => {
  it(
    'turns any JSON answer into a result or InvalidElicitationResponseError, and accepts only an offered value',
    async () => {
      const seen = { accepted: 0, declined: 0, cancelled: 0, invalid: 0 };
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 4 }), anyAnswer, async (choiceCount, answer) => {
          // Values are objects compared by identity: an accepted value must be one of these very objects.
          const choices = Array.from({ length: choiceCount }, (_, index) => ({
            value: { option: index },
            label: `Option ${index}`,
          }));
          let sent:
            | { requestedSchema?: { properties?: Record<string, { oneOf?: { const: string }[] }> } }
            | undefined;
          const client: ElicitationClient = {
            async request(method, params) {
              expect(method).toBe('elicitation/create');
              sent = params as typeof sent;
              return answer;
            },
            async notify() {},
          };
          const session = new AcpSessionContext({
            sessionId: 'session-1',
            client,
            clientCapabilities: { elicitation: { form: {} } },
          });
          let result: Awaited<ReturnType<typeof session.askChoice<(typeof choices)[number]>>>;
          try {
            result = await session.askChoice('Pick one', choices);
          } catch (error) {
            expect(InvalidElicitationResponseError.isInstance(error)).toBe(true);
            expect(knownCodes.has((error as InvalidElicitationResponseError).code)).toBe(true);
            seen.invalid += 1;
            return;
          }
          seen[result.status] += 1;
          const record = answer as { action?: unknown; content?: { choice?: unknown } };
          if (result.status === 'accepted') {
            expect(record.action).toBe('accept');
            const offered = Object.values(sent!.requestedSchema!.properties!)[0]!.oneOf!.map(
              (option) => option.const,
            );
            expect(offered).toContain(record.content?.choice);
            // The exact value whose token came back, by identity (not a copy, not a neighbour).
            const index = offered.indexOf(record.content?.choice as string);
            expect(result.value).toBe(choices[index]!.value);
          } else {
            expect(record.action).toBe(result.status === 'declined' ? 'decline' : 'cancel');
          }
        }),
        { numRuns: PROPERTY_RUNS },
      );
      for (const count of Object.values(seen)) expect(count).toBeGreaterThan(PROPERTY_RUNS / 100);
    },
    NIGHTLY ? 600_000 : 60_000,
  );
});
