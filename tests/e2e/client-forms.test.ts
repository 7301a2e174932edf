// Typed forms end to end: the built release-form example (askForm from a zod schema, askChoices of object values,
// askConfirm) answered through the built `acpkit client`, in a real pseudo-terminal and without a terminal.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { acpkitCli, Keys, PtySession, repositoryRoot } from './fixtures/client-pty.js';

const releaseFormAgent = `${repositoryRoot}examples/release-form/dist/agent.js`;
const agentLabel = 'Release form example (release-form 0.0.0)';

const sessions: PtySession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

function openClient(): PtySession {
  const session = new PtySession(process.execPath, [
    acpkitCli,
    'client',
    '--',
    process.execPath,
    releaseFormAgent,
  ]);
  sessions.push(session);
  return session;
}

/** Types `keys` once `label` appeared in reaction to the previous keys; returns the screen mark before typing. */
async function answer(session: PtySession, label: string, keys: string): Promise<number> {
  await session.waitFor(label, { from: session.typedAt });
  const mark = session.mark;
  session.type(keys);
  return mark;
}

/** Answers the release form's fields after the version: notes and date empty, a channel, the defaults. */
async function answerRestOfForm(session: PtySession, channelKeys: string): Promise<void> {
  await answer(session, 'Release notes (optional)', Keys.enter);
  await answer(session, 'Release date (optional)', Keys.enter);
  await answer(session, 'Channel', channelKeys);
  // Fields with a default are prefilled, not "(optional)"; a yes/no question is never "(optional)".
  await answer(session, 'Rollout percentage', Keys.enter);
  await answer(session, 'Notify the team', Keys.enter);
}

// Dozens of keystrokes, each waited for on screen: room for a loaded two-core runner.
describe('acpkit client in a terminal: a zod form from askForm', { timeout: 180_000 }, () => {
  it('re-asks a field the client checks, re-asks the form the agent refused, and returns object values', async () => {
    const session = openClient();
    await session.waitFor(`Connected to ${agentLabel}.`);
    await answer(session, 'message the agent', `release${Keys.enter}`);

    // The client checks what the form says: the version's pattern (and its prefilled default).
    await session.waitFor('Version — MAJOR.MINOR.PATCH, after 1.4.0', { from: session.typedAt });
    await session.waitFor('Release details');
    await session.waitFor(`Form from ${agentLabel}`);
    let mark = session.mark;
    session.type(`${Keys.backspace.repeat(5)}v1${Keys.enter}`);
    await session.waitFor('Must match the pattern ^\\d+\\.\\d+\\.\\d+$.', { from: mark });
    mark = session.mark;
    // 1.3.0 passes the pattern; only the agent's .refine() knows it must come after 1.4.0.
    session.type(`${Keys.backspace.repeat(2)}1.3.0${Keys.enter}`);
    await answerRestOfForm(session, `${Keys.down}${Keys.enter}`);
    await session.waitFor(`Send these answers to ${agentLabel}`, { from: session.typedAt });
    expect(session.screen.slice(mark)).toContain('Version: 1.3.0');
    expect(session.screen.slice(mark)).toContain('Channel: Preview');
    mark = session.mark;
    session.type(Keys.enter);

    // The agent validated the answer with the same zod schema, said why, and asked again.
    await session.waitFor(
      'Those answers were not accepted (version: Must come after 1.4.0). Please try again.',
      {
        from: mark,
      },
    );
    await answer(session, 'Version — ', Keys.enter);
    await answerRestOfForm(session, `${Keys.down}${Keys.enter}`);
    await answer(session, `Send these answers to ${agentLabel}`, Keys.enter);

    // A multi-select of object values: the client sees labels, the agent gets the objects back. A one-field form:
    // the agent's question is the prompt, and the review shows the answer.
    mark = await answer(
      session,
      'Which packages should be published? (choose at least 1)',
      `${Keys.down}${Keys.space}`,
    );
    await session.waitFor('◼ remote', { from: mark });
    mark = session.mark;
    session.type(`${Keys.down}${Keys.space}`);
    await session.waitFor('◼ cli — The acpkit CLI.', { from: mark });
    session.type(Keys.enter);
    await answer(session, `Send elicitation, remote, cli to ${agentLabel}?`, Keys.enter);
    await session.waitFor(
      `Release plan: ${JSON.stringify({
        version: '1.5.0',
        channel: { name: 'preview', npmTag: 'next' },
        rollout: 10,
        notify: true,
        packages: [
          { name: '@acpkit/elicitation', directory: 'packages/elicitation' },
          { name: '@acpkit/remote', directory: 'packages/remote' },
          { name: '@acpkit/cli', directory: 'apps/acpkit' },
        ],
      })}`,
      { from: session.typedAt },
    );

    // askConfirm: one select, Yes / No / Decline, No preselected; picking Yes sends it (no review, no "(optional)").
    mark = await answer(
      session,
      'Publish 1.5.0 of 3 package(s) under the npm tag next to 10% of users?',
      `${Keys.up}${Keys.enter}`,
    );
    await session.waitFor('Publishing 1.5.0: @acpkit/elicitation, @acpkit/remote, @acpkit/cli.', {
      from: mark,
    });
    expect(session.screen.slice(mark)).not.toContain('Send these answers');
    expect(session.screen).not.toContain('Publish now (optional)');
    await session.waitFor('message the agent', { from: session.typedAt });
    session.type(Keys.escape);
    expect((await session.exited).exitCode).toBe(0);
  });

  it('declines the form from its review step and cancels it with Esc', async () => {
    const session = openClient();
    await answer(session, 'message the agent', `release${Keys.enter}`);
    await answer(session, 'Version — ', Keys.enter);
    await answerRestOfForm(session, Keys.enter);
    let mark = await answer(
      session,
      `Send these answers to ${agentLabel}`,
      `${Keys.down}${Keys.down}${Keys.enter}`,
    );
    await session.waitFor('Release not planned: the release form was declined.', { from: mark });
    await answer(session, 'message the agent', `again${Keys.enter}`);
    mark = await answer(session, 'Version — ', Keys.escape);
    await session.waitFor('Release not planned: the release form was cancelled.', { from: mark });
    await session.waitFor('message the agent', { from: session.typedAt });
    session.type(Keys.escape);
    expect((await session.exited).exitCode).toBe(0);
  });
});

describe('acpkit client without a terminal: a zod form from askForm', () => {
  it('answers every form with its defaults, prints them, and the agent gets the offered values back', async () => {
    const child = spawn(
      process.execPath,
      [acpkitCli, 'client', '--prompt', 'release', '--', process.execPath, releaseFormAgent],
      {
        cwd: repositoryRoot,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toBe('');
    expect(stdout).toContain(
      [
        `? ${agentLabel} asks: Plan the release`,
        '  Version: 1.5.0 [default]',
        '  Release notes: (left empty)',
        '  Release date: (left empty)',
        '  Channel: Stable [default]',
        '  Rollout percentage: 10 [default]',
        '  Notify the team: yes [default]',
        '  Answered automatically (--yes or no terminal): accept',
        `? ${agentLabel} asks: Which packages should be published?`,
        '  Packages: elicitation [default]',
        '  Answered automatically (--yes or no terminal): accept',
        `Release plan: ${JSON.stringify({
          version: '1.5.0',
          channel: { name: 'stable', npmTag: 'latest' },
          rollout: 10,
          notify: true,
          packages: [{ name: '@acpkit/elicitation', directory: 'packages/elicitation' }],
        })}`,
        `? ${agentLabel} asks: Publish 1.5.0 of 1 package(s) under the npm tag latest to 10% of users?`,
        '  Publish now: no [default]',
        '  Answered automatically (--yes or no terminal): accept',
        'Not published: the release was not confirmed.',
      ].join('\n'),
    );
    expect(code).toBe(0);
  });
});
