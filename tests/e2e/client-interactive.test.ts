// `acpkit client` driven in a real pseudo-terminal: a person types a prompt, moves the selection with the arrow
// keys, confirms, declines or cancels, and reads the answer on screen.
import { afterEach, describe, expect, it } from 'vitest';
import { acpkitCli, Keys, PtySession, startClient } from './fixtures/client-pty.js';
import { deployTarget } from './support/paths.js';

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
    // Each line is waited for, not looked up once: the prompt may reach the terminal in several writes.
    await session.waitFor('Form from Fixture Agent (fixture-agent 1.0.0) (Esc cancels it)');
    await session.waitFor('Production — Deploy to the production environment.');
    // The `_meta` description is shown when the standard one is absent.
    await session.waitFor('Preview — Deploy a preview build.');
    await session.waitFor('Decline');
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

// Many keystrokes, each waited for on screen: give the form tests room on a loaded two-core runner.
describe('acpkit client in a terminal: a multi-field form', { timeout: 120_000 }, () => {
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
    await session.waitFor('Describe the release');
    await session.waitFor('Form from Fixture Agent');

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
    // Asked again with the three still selected and the cursor on Stable: untick it, and confirm only once the
    // prompt has redrawn (a key sent while it redraws can be lost on a busy machine).
    session.type(Keys.space);
    await session.waitFor('◻ Stable', { from: mark });
    session.type(Keys.enter);

    await session.waitFor('Send these answers to Fixture Agent', { from: mark });
    expect(session.screen.slice(mark)).toContain('Release name: abc');
    expect(session.screen.slice(mark)).toContain('Channels: Beta, Nightly');
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

/** The fixture agent's pid, which it prints to stderr at start. */
async function agentPid(session: PtySession): Promise<number> {
  await session.waitFor(/fixture agent pid \d+/);
  return Number(/fixture agent pid (\d+)/.exec(session.screen)?.[1]);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('acpkit client in a terminal: URL mode', () => {
  it('shows the full URL and host, warns about punycode, and declines by default without opening anything', async () => {
    const session = open('url');
    await sendPrompt(session, 'sign in');
    await session.waitFor('Will you open this URL yourself?');
    await session.waitFor('Fixture Agent (fixture-agent 1.0.0) asks you to open a URL');
    await session.waitFor('URL:  https://xn--pple-43d.example/login?state=abc');
    await session.waitFor('Host: xn--pple-43d.example');
    await session.waitFor('is punycode; it displays as аpple.example');
    const mark = session.mark;
    session.type(Keys.enter);
    await session.waitFor('URL flow: decline', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });

  it('after consent waits for elicitation/complete and reports it', async () => {
    const session = open('url');
    await sendPrompt(session, 'sign in');
    await session.waitFor('Will you open this URL yourself?');
    const mark = session.mark;
    session.type(`${Keys.up}${Keys.enter}`);
    await session.waitFor('reports the URL flow is complete', { from: mark });
    await session.waitFor('URL flow: accept', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });

  it('after consent lets the person continue by hand when no completion comes', async () => {
    const session = open('url-manual');
    await sendPrompt(session, 'sign in');
    await session.waitFor('Will you open this URL yourself?');
    let mark = session.mark;
    session.type(`${Keys.up}${Keys.enter}`);
    await session.waitFor('Continue without waiting', { from: mark });
    // The agent's reply is held back while the wait is on screen.
    expect(session.screen.slice(mark)).not.toContain('URL flow: accept');
    mark = session.mark;
    session.type(Keys.enter);
    await session.waitFor('Stopped waiting for https://xn--pple-43d.example/login?state=abc', { from: mark });
    await session.waitFor('URL flow: accept', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });
});

describe('acpkit client in a terminal: tool calls, plans and permissions', () => {
  it('streams chunks, shows the plan and tool call compactly, and answers permission with the option picked', async () => {
    const session = open('tools');
    await sendPrompt(session, 'deploy');
    await session.waitFor('Allow once');
    const screen = session.screen;
    expect(screen).toContain('Looking at the repository.');
    expect(screen).toContain('Plan:\r\n  [x] Read the config\r\n  [ ] Deploy');
    expect(screen).toContain('⚙ Run deploy script (execute) … pending');
    expect(screen).toContain('Fixture Agent (fixture-agent 1.0.0) asks for permission');
    const mark = session.mark;
    session.type(`${Keys.down}${Keys.enter}`);
    await session.waitFor('✓ Run deploy script completed', { from: mark });
    await session.waitFor('Permission: allow', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });

  it('answers cancelled when the person presses Esc at the permission prompt', async () => {
    const session = open('tools');
    await sendPrompt(session, 'deploy');
    await session.waitFor('Allow once');
    const mark = session.mark;
    session.type(Keys.escape);
    await session.waitFor('✗ Run deploy script failed', { from: mark });
    await session.waitFor('Permission: cancelled', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });
});

describe('acpkit client in a terminal: Ctrl+C', () => {
  it('sends session/cancel on the first Ctrl+C and keeps the conversation going', async () => {
    const session = open('slow');
    await sendPrompt(session, 'the release');
    await session.waitFor('Working on the release…');
    const mark = session.mark;
    session.type(Keys.interrupt);
    await session.waitFor('Cancelling the turn… (press Ctrl+C again to quit)', { from: mark });
    await session.waitFor('Stopped on request.', { from: mark });
    await session.waitFor('(turn ended: cancelled)', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });

  it('cancels the turn of an open form: the form closes, the example agent ends with stopReason cancelled', async () => {
    const session = new PtySession(process.execPath, [
      acpkitCli,
      'client',
      '--',
      process.execPath,
      deployTarget.directory,
    ]);
    sessions.push(session);
    await sendPrompt(session, 'deploy');
    await session.waitFor('Choose a deployment target');
    const mark = session.mark;
    // SIGINT itself, as a terminal sends it outside raw mode: the open form reads Ctrl+C as a key.
    process.kill(session.pid, 'SIGINT');
    await session.waitFor('Cancelling the turn… (press Ctrl+C again to quit)', { from: mark });
    await session.waitFor('The choice was cancelled.', { from: mark });
    await session.waitFor('(turn ended: cancelled)', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });

  it('exits with 130 on the second Ctrl+C and reaps the agent', async () => {
    const session = open('stubborn');
    const pid = await agentPid(session);
    await sendPrompt(session, 'the release');
    await session.waitFor('Working forever on the release…');
    let mark = session.mark;
    session.type(Keys.interrupt);
    await session.waitFor('Cancelling the turn…', { from: mark });
    mark = session.mark;
    session.type(Keys.interrupt);
    expect((await session.exited).exitCode).toBe(130);
    expect(isAlive(pid)).toBe(false);
  });
});

describe('acpkit client in a terminal: a failed turn', () => {
  it('reports the error and lets the person go on', async () => {
    const session = open('fails');
    await sendPrompt(session, 'first');
    const mark = session.typedAt;
    await session.waitFor('Error: The agent answered with an error: Internal error', { from: mark });
    expect(await quit(session, mark)).toBe(0);
  });
});

describe('acpkit client in a terminal: the agent dies', () => {
  it('clears the open form, then prints one line, connection lost, and exits 1', async () => {
    const session = open('single-choice');
    const pid = await agentPid(session);
    await sendPrompt(session, 'deploy');
    await session.waitFor('Choose a deployment target');
    const mark = session.mark;
    process.kill(pid, 'SIGKILL');
    await session.waitFor('Error: Connection to the agent lost: it exited (signal SIGKILL).', { from: mark });
    expect((await session.exited).exitCode).toBe(1);
    const after = session.screen.slice(mark);
    // The agent did not withdraw anything, and no new prompt line opens before the client exits.
    expect(after).not.toContain('withdrew');
    expect(after).not.toContain('message the agent');
    // The form closed (clack draws its closed state) before the error line, not underneath it.
    const errorAt = after.indexOf('Error: Connection to the agent lost');
    expect(after.slice(errorAt)).not.toContain('Decline');
    expect(after.match(/Error: /g)).toHaveLength(1);
  });
});

describe('acpkit client in a terminal: --yes', () => {
  it('asks for the prompt but answers the form with its default and prints what it answered', async () => {
    const session = open('single-choice', ['--yes']);
    await sendPrompt(session, 'deploy');
    const mark = session.typedAt;
    await session.waitFor('Selected: production', { from: mark });
    expect(session.screen).toContain('Target: Production [default]');
    expect(session.screen).toContain('Answered automatically (--yes or no terminal): accept');
    expect(session.screen).not.toContain('Decline');
    expect(await quit(session, mark)).toBe(0);
  });
});
