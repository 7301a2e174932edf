// `acpkit client` driven in a real pseudo-terminal: a person types a prompt, moves the selection with the arrow
// keys, confirms, declines or cancels, and reads the answer on screen.
import { afterEach, describe, expect, it } from 'vitest';
import { Keys, type PtySession, startClient } from './fixtures/client-pty.js';

const sessions: PtySession[] = [];
function open(scenario: string, flags: readonly string[] = []): PtySession {
  const session = startClient(scenario, flags);
  sessions.push(session);
  return session;
}

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

/** Types a prompt at the client's prompt line. */
async function sendPrompt(session: PtySession, prompt: string): Promise<void> {
  await session.waitFor('message the agent');
  session.type(`${prompt}${Keys.enter}`);
}

/** Leaves the client from its prompt line and returns the exit code. */
async function quit(session: PtySession, from: number): Promise<number> {
  await session.waitFor('message the agent', { from });
  session.type(Keys.escape);
  return (await session.exited).exitCode;
}

describe('acpkit client in a terminal: single choice', () => {
  it('names the agent, preselects the default with its description, and sends the option picked with the arrows', async () => {
    const session = open('single-choice');
    await session.waitFor('Connected to Fixture Agent (fixture-agent 1.0.0).');
    await sendPrompt(session, 'deploy please');
    await session.waitFor('Choose a deployment target');
    expect(session.screen).toContain('Form from Fixture Agent (fixture-agent 1.0.0)');
    expect(session.screen).toContain('Production — Deploy to the production environment.');
    // The `_meta` description is shown when the standard one is absent.
    expect(session.screen).toContain('Preview — Deploy a preview build.');
    expect(session.screen).toContain('Decline');
    const mark = session.mark;
    session.type(Keys.up);
    session.type(Keys.enter);
    await session.waitFor('Selected: preview', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });

  it('accepts the preselected default with Enter alone', async () => {
    const session = open('single-choice');
    await sendPrompt(session, 'deploy');
    await session.waitFor('Choose a deployment target');
    const mark = session.mark;
    session.type(Keys.enter);
    await session.waitFor('Selected: production', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });

  it('declines through the Decline entry', async () => {
    const session = open('single-choice');
    await sendPrompt(session, 'deploy');
    await session.waitFor('Choose a deployment target');
    const mark = session.mark;
    session.type(Keys.down);
    session.type(Keys.enter);
    await session.waitFor('Not selected: decline', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });

  it('cancels with Esc', async () => {
    const session = open('single-choice');
    await sendPrompt(session, 'deploy');
    await session.waitFor('Choose a deployment target');
    const mark = session.mark;
    session.type(Keys.escape);
    await session.waitFor('Not selected: cancel', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });
});

describe('acpkit client in a terminal: a multi-field form', () => {
  /** Types into the prompt that shows `label`, once it appeared in reaction to the previous keys. */
  async function answer(session: PtySession, label: string, keys: string): Promise<number> {
    await session.waitFor(label, { from: session.typedAt });
    const mark = session.mark;
    session.type(keys);
    return mark;
  }

  it('validates each field as it is typed, re-asks a multi-select over maxItems, and sends after review', async () => {
    const session = open('multi-field');
    await sendPrompt(session, 'release');
    await session.waitFor('Release name');
    expect(session.screen).toContain('Describe the release');
    expect(session.screen).toContain('Form from Fixture Agent');

    let mark = session.mark;
    session.type(`ab${Keys.enter}`);
    await session.waitFor('Enter at least 3 characters.', { from: mark });
    mark = session.mark;
    session.type(`!${Keys.enter}`);
    await session.waitFor('Must match the pattern ^[a-z0-9-]+$.', { from: mark });
    mark = session.mark;
    session.type(`${Keys.backspace}c${Keys.enter}`);

    await session.waitFor('Replicas', { from: mark });
    mark = session.mark;
    // The default (2) is prefilled; replace it with a value over the maximum first.
    session.type(`${Keys.backspace}9${Keys.enter}`);
    await session.waitFor('Must be at most 5.', { from: mark });
    mark = session.mark;
    session.type(`${Keys.backspace}3${Keys.enter}`);

    await session.waitFor('Canary ratio (optional)', { from: mark });
    mark = session.mark;
    session.type(Keys.enter);

    await session.waitFor('Notify the team', { from: mark });
    mark = session.mark;
    session.type(Keys.enter);

    await session.waitFor('Contact email (optional)', { from: mark });
    mark = session.mark;
    session.type(`ops${Keys.enter}`);
    await session.waitFor('Enter a valid email address.', { from: mark });
    mark = session.mark;
    session.type(`@example.com${Keys.enter}`);

    await session.waitFor('Channels (choose at least 1, at most 2)', { from: mark });
    mark = session.mark;
    session.type(`${Keys.space}${Keys.down}${Keys.space}${Keys.down}${Keys.space}${Keys.enter}`);
    await session.waitFor('Choose at most 2 options.', { from: mark });
    await session.waitFor('Channels (choose at least 1, at most 2)', { from: mark });
    mark = session.mark;
    // Asked again with the three still selected and the cursor on Stable: untick it.
    session.type(`${Keys.space}${Keys.enter}`);

    await session.waitFor('Send these answers to Fixture Agent', { from: mark });
    expect(session.screen.slice(mark)).toContain('Release name: abc');
    expect(session.screen.slice(mark)).toContain('Channels: beta, nightly');
    mark = session.mark;
    session.type(Keys.enter);
    await session.waitFor(
      'Release form: accept {"name":"abc","replicas":3,"notify":true,"contact":"ops@example.com","channels":["beta","nightly"]}',
      { from: mark },
    );
    expect(await quit(session, mark)).toBe(0);
  });

  it('lets the person edit the answers after review, then decline', async () => {
    const session = open('multi-field');
    await sendPrompt(session, 'release');
    await answer(session, 'Release name', `first${Keys.enter}`);
    await answer(session, 'Replicas', Keys.enter);
    await answer(session, 'Canary ratio', `0.5${Keys.enter}`);
    await answer(session, 'Notify the team', Keys.enter);
    await answer(session, 'Contact email', Keys.enter);
    await answer(session, 'Channels', `${Keys.space}${Keys.enter}`);
    let mark = await answer(session, 'Send these answers', `${Keys.down}${Keys.enter}`);
    // Edit: every field is asked again with the previous answer filled in.
    await session.waitFor('Release name', { from: mark });
    expect(session.screen.slice(mark)).toContain('first');
    mark = session.mark;
    session.type(`-two${Keys.enter}`);
    await answer(session, 'Replicas', Keys.enter);
    await answer(session, 'Canary ratio', Keys.enter);
    await answer(session, 'Notify the team', Keys.enter);
    await answer(session, 'Contact email', Keys.enter);
    await answer(session, 'Channels', Keys.enter);
    await session.waitFor('Release name: first-two', { from: mark });
    mark = await answer(session, 'Send these answers', `${Keys.down}${Keys.down}${Keys.enter}`);
    await session.waitFor('Release form: decline', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });

  it('cancels the whole form with Esc in the middle of it', async () => {
    const session = open('multi-field');
    await sendPrompt(session, 'release');
    await answer(session, 'Release name', `valid-name${Keys.enter}`);
    const mark = await answer(session, 'Replicas', Keys.escape);
    await session.waitFor('Release form: cancel', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });
});
