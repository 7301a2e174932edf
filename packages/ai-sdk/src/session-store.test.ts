import { memorySessionStore, SessionStoreError } from '@acpkit/sessions';
import { describe, expect, it } from 'vitest';
import { readStoredSession } from './session-store.js';

async function stored(entries: unknown[], state: Record<string, unknown> = {}) {
  const store = memorySessionStore();
  await store.save({ sessionId: 's', expectedVersion: 0, cwd: '/work', title: 'T', state, append: entries });
  const session = await store.get('s');
  if (session === undefined) throw new Error('not stored');
  return session;
}

describe('readStoredSession', () => {
  it('joins every entry’s messages and transcript in order, keeps binary parts and carries unknown state keys', async () => {
    const image = Uint8Array.from([137, 80, 78, 71, 0, 255]);
    const session = readStoredSession(
      await stored(
        [
          {
            messages: [{ role: 'user', content: [{ type: 'image', image, mediaType: 'image/png' }] }],
            transcript: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'look' } }],
          },
          { messages: [{ role: 'assistant', content: 'a cat' }], transcript: [] },
        ],
        { alwaysAllowedTools: ['read'], modeId: 'ask' },
      ),
    );
    expect(session).toMatchObject({ sessionId: 's', cwd: '/work', title: 'T', version: 1 });
    expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    const [first] = session.messages;
    if (first === undefined) throw new Error('no message');
    const [part] = first.content as unknown as [{ image: Uint8Array }];
    expect([...part.image]).toEqual([...image]);
    expect(session.transcript).toHaveLength(1);
    expect(session.state).toEqual({ alwaysAllowedTools: ['read'], modeId: 'ask' });
  });

  it.each([
    ['an entry that is not an AI SDK entry', ['just text'], {}],
    ['a message the AI SDK does not accept', [{ messages: [{ role: 'wizard' }], transcript: [] }], {}],
    ['a transcript item that is not an update', [{ messages: [], transcript: [42] }], {}],
    ['tools allowed that are not names', [], { alwaysAllowedTools: [1, 2] }],
    ['a mode id that is not a string', [], { modeId: 7 }],
    ['config values that are not option values', [], { config: { model: { id: 'x' } } }],
    ['a plan that is not a list of entries', [], { plan: 'do it' }],
    ['a cost without a currency', [], { cost: { amount: 1 } }],
  ])('refuses %s with CORRUPT_RECORD', async (_what, entries, state) => {
    const session = await stored(entries, state);
    let thrown: unknown;
    try {
      readStoredSession(session);
    } catch (error) {
      thrown = error;
    }
    expect(SessionStoreError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'CORRUPT_RECORD', details: { sessionId: 's' } });
  });
});
