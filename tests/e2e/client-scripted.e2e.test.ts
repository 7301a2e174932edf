// `acpkit client` answering forms from a script (--answer, --answers, --decline, --cancel), and the messages that
// say what went wrong and what to do: the built CLI's `main` (what its bin runs) in this process with real agent
// processes and no terminal, so ~40 runs cost no CLI start each. The process-level client (its own stdin, stderr
// passed through from the agent, signals, exit) is tested here by the runs that need it (`spawnedClient`) and on every
// Node line in client-non-interactive, client-interactive and client-forms.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '@acpkit/cli';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cliPaths, deployTarget, fixturePath, repositoryRoot } from './support/paths.js';
import { type CompletedRun, isAlive, reapAll, spawnCli } from './support/processes.js';
import { startExpose } from './support/remote-servers.js';

const fixtureAgent = fixturePath('client-fixture-agent.mjs');
const diagnosticsAgent = fixturePath('client-diagnostics-agent.mjs');
const scratchDirectories: string[] = [];

afterEach(async () => {
  await reapAll();
  for (const directory of scratchDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A stream that keeps what is written to it as text. */
function collected(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  return { stream, text: () => text };
}

/**
 * Runs `acpkit client ARGS` as its bin does (`main(argv)` of the built @acpkit/cli) with `input` on its stdin (not a
 * terminal), and resolves when it has ended. It never sees a stop signal: the signal tests spawn the CLI.
 */
async function client(
  args: readonly string[],
  options: { input?: string; cwd?: string } = {},
): Promise<CompletedRun & { seconds: number }> {
  const started = Date.now();
  const stdin = new PassThrough();
  stdin.end(options.input ?? '');
  const stdout = collected();
  const stderr = collected();
  const code = await main(['client', ...args], {
    stdin,
    stdout: stdout.stream,
    stderr: stderr.stream,
    cwd: options.cwd ?? repositoryRoot,
    env: process.env,
    waitForStopSignal: () => new Promise(() => {}),
    onStopSignal: () => () => {},
  });
  return {
    code,
    signal: null,
    stdout: stdout.text(),
    stderr: stderr.text(),
    seconds: (Date.now() - started) / 1000,
  };
}

/** Runs `acpkit client ARGS` in a process of its own (the agent's stderr then passes through its stderr). */
async function spawnedClient(
  args: readonly string[],
  options: { cwd?: string } = {},
): Promise<CompletedRun & { seconds: number }> {
  const started = Date.now();
  const processHandle = spawnCli('acpkit', ['client', ...args], options.cwd ? { cwd: options.cwd } : {});
  processHandle.child.stdin?.end('');
  const exit = await processHandle.closed;
  return {
    ...exit,
    stdout: processHandle.stdout(),
    stderr: processHandle.stderr(),
    seconds: (Date.now() - started) / 1000,
  };
}

function answersFile(content: unknown): string {
  const directory = mkdtempSync(join(tmpdir(), 'acpkit-answers-'));
  scratchDirectories.push(directory);
  const file = join(directory, 'answers.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const deploy = ['--prompt', 'Deploy', '--', process.execPath, deployTarget.directory];

/** The line `--answer` adds to a form it does not fit; `which` says an earlier form took the answers. */
const answersFilePointer = (which: string) =>
  `--answer applies to every form the agent asks${which}; to answer each form differently, give one answer per ` +
  'form, or answers keyed by form title, with --answers FILE.\n';

/** `--answer A --answer B … --prompt release -- node client-fixture-agent.mjs multi-field` */
function releaseForm(...answers: string[]): string[] {
  return [
    ...answers.flatMap((answer) => ['--answer', answer]),
    ...['--prompt', 'release', '--', process.execPath, fixtureAgent, 'multi-field'],
  ];
}

describe('acpkit client --answer', () => {
  it('picks the non-default choice by its title: the README example prints Selected: preview', async () => {
    const result = await client(['--answer', 'Choice=Preview', ...deploy]);
    expect(result.stdout).toContain(
      [
        '? Deploy target example (deploy-target 0.0.0) asks: Choose a deployment target',
        '  Choice: Preview [--answer]',
        '  Answered from --answer: accept',
        'Selected: preview',
      ].join('\n'),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it("also takes the option's value (the token the agent sent)", async () => {
    const result = await client(['--answer', 'choice=choice_0', ...deploy]);
    expect(result.stdout).toContain('Selected: preview');
    expect(result.code).toBe(0);
  });

  it('answers a multi-field form: text, integer, boolean, email and a repeated multi-select, defaults for the rest', async () => {
    const result = await client(
      releaseForm(
        'Release name=r-2026',
        'Replicas=3',
        'notify=no',
        'Contact email=ops@example.com',
        'Channels=Stable',
        'Channels=beta',
      ),
    );
    expect(result.stdout).toContain(
      [
        '  Release name: r-2026 [--answer]',
        '  Replicas: 3 [--answer]',
        '  Canary ratio: (left empty)',
        '  Notify the team: no [--answer]',
        '  Contact email: ops@example.com [--answer]',
        '  Channels: Stable, Beta [--answer]',
        '  Answered from --answer: accept',
        'Release form: accept {"name":"r-2026","replicas":3,"notify":false,"contact":"ops@example.com","channels":["stable","beta"]}',
      ].join('\n'),
    );
    expect(result.code).toBe(0);
  });

  it('exits 2 naming the form, the field and the options when a value matches no option; the agent is not told a default', async () => {
    const result = await client(['--answer', 'Choice=Staging', ...deploy]);
    expect(result.stderr).toBe(
      'Error: The answer for the field "Choice" of the form "Choose a deployment target" does not fit: ' +
        '"Staging" is not one of its options ("Preview", "Production")\n',
    );
    expect(result.stdout).not.toContain('Selected:');
    // The agent got a plain cancel; what it says after that is not shown after the error.
    expect(result.stdout).not.toContain('The choice was cancelled.');
    expect(result.code).toBe(2);
  });

  it('exits 2 listing the fields when a NAME is no field of the form', async () => {
    const result = await client(['--answer', 'Target=Preview', ...deploy]);
    expect(result.stderr).toBe(
      'Error: The form "Choose a deployment target" has no field "Target" (its fields: "Choice" (choice)).\n' +
        answersFilePointer(''),
    );
    expect(result.code).toBe(2);
  });

  it('exits 2 when a value fails the field validation or a required field is left out', async () => {
    const invalid = await client(releaseForm('Release name=Not Valid', 'Channels=Stable'));
    // The fixture agent's own stderr line (its pid) passes through; the client adds exactly one line.
    expect(invalid.stderr.replace(/^fixture agent pid \d+\n/, '')).toBe(
      'Error: The answer for the field "Release name" of the form "Release details" does not fit: ' +
        'Must match the pattern ^[a-z0-9-]+$.\n',
    );
    expect(invalid.code).toBe(2);
    const missing = await client(releaseForm('Channels=Stable'));
    expect(missing.stderr.replace(/^fixture agent pid \d+\n/, '')).toBe(
      'Error: The form "Release details" needs an answer for the field "Release name", which the script leaves out ' +
        '(Release name is required and has no default).\n',
    );
    expect(missing.code).toBe(2);
  });

  it('exits 2 for a required multi-select left out: a script never picks the first option for you', async () => {
    const result = await client(releaseForm('Release name=r-1'));
    expect(result.stderr.replace(/^fixture agent pid \d+\n/, '')).toBe(
      'Error: The form "Release details" needs an answer for the field "Channels", which the script leaves out ' +
        '(Channels is required and has no default).\n',
    );
    expect(result.code).toBe(2);
  });

  it.each(['0x3', '3e0', '+3', '03', ' 3'])(
    'exits 2 for the number %j: only plain decimal text is a number',
    async (text) => {
      const result = await client(releaseForm('Release name=r-1', 'Channels=Stable', `Replicas=${text}`));
      expect(result.stderr.replace(/^fixture agent pid \d+\n/, '')).toBe(
        'Error: The answer for the field "Replicas" of the form "Release details" does not fit: it takes a decimal ' +
          `number such as 3, -2 or 0.25, not ${JSON.stringify(text)}\n`,
      );
      expect(result.code).toBe(2);
    },
  );

  it('says --answer applies to every form, and points to --answers FILE, when a later form does not fit', async () => {
    const result = await client([
      '--answer',
      'First=Alpha',
      '--prompt',
      'go',
      '--',
      process.execPath,
      diagnosticsAgent,
      'two-forms',
    ]);
    expect(result.stdout).toContain('  First: Alpha [--answer]\n');
    expect(result.stderr).toBe(
      'Error: The script does not fit the form "Second question" in 2 places:\n' +
        '- The form "Second question" has no field "First" (its fields: "Second" (pick)).\n' +
        '- The form "Second question" needs an answer for the field "Second", which the script leaves out (Second is ' +
        'required and has no default).\n' +
        answersFilePointer(', and an earlier form took these answers'),
    );
    expect(result.code).toBe(2);
  });

  it('points to --answers FILE when --answer does not fit the first form either', async () => {
    const result = await client([
      '--answer',
      'Second=Alpha',
      '--prompt',
      'go',
      '--',
      process.execPath,
      diagnosticsAgent,
      'two-forms',
    ]);
    expect(result.stderr).toBe(
      'Error: The script does not fit the form "First question" in 2 places:\n' +
        '- The form "First question" has no field "Second" (its fields: "First" (pick)).\n' +
        '- The form "First question" needs an answer for the field "First", which the script leaves out (First is ' +
        'required and has no default).\n' +
        answersFilePointer(''),
    );
    expect(result.code).toBe(2);
  });

  it('reports every field of the form that does not fit, at once', async () => {
    const result = await client(releaseForm('Release nmae=r-1', 'Replicas=9', 'Channels=Gold'));
    expect(result.stderr.replace(/^fixture agent pid \d+\n/, '')).toBe(
      [
        'Error: The script does not fit the form "Release details" in 4 places:',
        '- The form "Release details" has no field "Release nmae" (its fields: "Release name" (name), "Replicas" ' +
          '(replicas), "Canary ratio" (ratio), "Notify the team" (notify), "Contact email" (contact), "Channels" ' +
          '(channels)).',
        '- The answer for the field "Replicas" of the form "Release details" does not fit: Must be at most 5.',
        '- The answer for the field "Channels" of the form "Release details" does not fit: "Gold" is not one of its ' +
          'options ("Stable", "Beta", "Nightly")',
        '- The form "Release details" needs an answer for the field "Release name", which the script leaves out ' +
          '(Release name is required and has no default).',
        answersFilePointer(''),
      ].join('\n'),
    );
    expect(result.code).toBe(2);
  });

  it('refuses a date-time the agent would refuse (its z.iso.datetime() takes only UTC) before sending it', async () => {
    const utcTime = ['--prompt', 'when', '--', process.execPath, diagnosticsAgent, 'utc-time'];
    const offset = await client(['--answer', 'At=2024-01-01T10:00:00+02:00', ...utcTime]);
    expect(offset.stderr).toBe(
      'Error: The answer for the field "At" of the form "When?" does not fit: This agent takes the time in another ' +
        'form: 2024-01-01T08:00:00Z (the same time in UTC) fits.\n',
    );
    expect(offset.code).toBe(2);
    const utc = await client(['--answer', 'At=2024-01-01T08:00:00Z', ...utcTime]);
    expect(utc.stdout).toContain('At: 2024-01-01T08:00:00Z');
    expect(utc.code).toBe(0);
  });

  it('exits 2 before starting the agent when an --answer is not NAME=VALUE', async () => {
    const result = await client(['--answer', 'Preview', ...deploy]);
    expect(result.stderr).toBe(
      'Error: --answer "Preview" is not NAME=VALUE (NAME is a field\'s property name or title).\n',
    );
    expect(result.code).toBe(2);
  });
});

describe('acpkit client --decline and --cancel', () => {
  it.each([
    ['--decline', 'decline', 'The user declined to choose.'],
    ['--cancel', 'cancel', 'The choice was cancelled.'],
  ])('%s answers every form with %s', async (flag, action, reply) => {
    const result = await client([flag, ...deploy]);
    expect(result.stdout).toContain(`  Answered from ${flag}: ${action}\n${reply}`);
    expect(result.code).toBe(0);
  });

  it('refuses two scripts at once', async () => {
    const result = await client(['--decline', '--cancel', ...deploy]);
    expect(result.stderr).toContain("Error: option '--decline' cannot be used with option '--cancel'");
    expect(result.code).toBe(2);
  });
});

describe('acpkit client --answers FILE', () => {
  const twoForms = (file: string) => [
    '--answers',
    file,
    '--prompt',
    'one',
    '--prompt',
    'two',
    '--',
    process.execPath,
    diagnosticsAgent,
    'two-forms',
  ];

  it('answers the forms in order, one entry each, across turns', async () => {
    const file = answersFile([{ First: 'Beta' }, { pick: 'a' }, 'decline', 'cancel']);
    const result = await client(twoForms(file));
    expect(result.stdout).toContain('Answers: b, a');
    expect(result.stdout).toContain('Answers: decline, cancel');
    expect(result.stdout).toContain(`  First: Beta [${file}]`);
    expect(result.code).toBe(0);
  });

  it('picks each form by its title from a JSON object, however often and in whatever order it is asked', async () => {
    const file = answersFile({ 'Second question': { Second: 'Alpha' }, 'First question': 'decline' });
    const result = await client(twoForms(file));
    expect(result.stdout).toContain('Answers: decline, a\n');
    expect(result.stdout.match(/Answers: decline, a/g)).toHaveLength(2);
    expect(result.stdout).toContain(`  Second: Alpha [${file}]`);
    expect(result.code).toBe(0);
    const missing = await client(twoForms(answersFile({ 'First question': 'decline' })));
    expect(missing.stderr).toMatch(
      /^Error: The agent asked the form "Second question", but .*answers\.json has no answer for it \(its answers are for "First question"; a form is named by its title, else by its question\)\.\n$/,
    );
    expect(missing.code).toBe(2);
  });

  it('exits 2 when the agent asks more forms than the file holds', async () => {
    const file = answersFile([{ First: 'Beta' }]);
    const result = await client(twoForms(file));
    expect(result.stderr).toBe(
      `Error: The agent asked the form "Second question", but ${file} holds only 1 answer (one per form, in order).\n`,
    );
    expect(result.code).toBe(2);
  });

  it('exits 2 before starting the agent for a file that is not a list of answers', async () => {
    const notJson = await client(twoForms(answersFile('{ nope')));
    expect(notJson.stderr).toMatch(/^Error: --answers ".*answers\.json" is not valid JSON: /);
    expect(notJson.code).toBe(2);
    const wrongShape = answersFile([{ First: { nested: true } }]);
    const badEntry = await client(twoForms(wrongShape));
    expect(badEntry.stderr).toBe(
      `Error: ${wrongShape}: answer 1: the value of "First" must be a string, number, boolean or list of strings, not {"nested":true}.\n`,
    );
    expect(badEntry.code).toBe(2);
  });
});

describe('acpkit client: messages that say what happened', () => {
  it("shows the agent's error.data, not just Internal error", async () => {
    const result = await client([
      '--prompt',
      'deploy',
      '--',
      process.execPath,
      diagnosticsAgent,
      'two-defaults',
    ]);
    expect(result.stderr).toContain(
      'Error: The agent answered with an error: Internal error (-32603): at most one choice may be the default\n',
    );
    expect(result.code).toBe(1);
  });

  it("names an ACP Kit error's class and code and shows its fix: FormSchemaError from z.date()", async () => {
    const result = await client(['--prompt', 'when', '--', process.execPath, diagnosticsAgent, 'date-form']);
    expect(result.stderr).toContain(
      'Error: The agent answered with an error: Internal error (-32603): FormSchemaError UNSUPPORTED_TYPE: ' +
        'Property "when" is a date (z.date()), which no ACP form field can hold: ACP forms carry dates as text; use ' +
        'z.iso.date() (YYYY-MM-DD) or z.iso.datetime()',
    );
    expect(result.code).toBe(1);
  });

  it('warns with a preview about non-JSON agent stdout, and never hangs on an agent that only prints text', async () => {
    const result = await client([
      '--yes',
      '--prompt',
      'hi',
      '--',
      process.execPath,
      diagnosticsAgent,
      'noise-only',
    ]);
    expect(result.stderr).toContain(
      'Warning: the agent wrote a line to stdout that is not JSON-RPC; it was dropped (stdout of an ACP agent must ' +
        'carry only JSON-RPC, logs belong on stderr): "Agent starting up, please wait…"\n',
    );
    expect(result.stderr).toContain(
      'Error: The agent wrote text that is not JSON-RPC to stdout ("Agent starting up, please wait…") and did not ' +
        'answer initialize within 2 s. Is “node ',
    );
    expect(result.stderr).toContain('client-diagnostics-agent.mjs noise-only” an ACP agent?');
    expect(result.code).toBe(1);
    // Two seconds of grace after the line, plus start-up: far from "until killed".
    expect(result.seconds).toBeLessThan(30);
  }, 40_000);

  it('says it is waiting for an agent that answers nothing, gives up after --initialize-timeout, and reaps it', async () => {
    // The agent by a relative path: the message names the command whole only while it fits 80 characters, and an
    // absolute path would make that depend on where the repository is checked out.
    // In a process of its own: the agent's pid line reaches the client's stderr.
    const result = await spawnedClient(
      [
        '--initialize-timeout',
        '2',
        '--prompt',
        'hi',
        '--',
        process.execPath,
        'client-diagnostics-agent.mjs',
        'silent',
      ],
      { cwd: fixturePath('') },
    );
    const pid = Number(/diagnostics agent pid (\d+)/.exec(result.stderr)?.[1]);
    // The agent's own pid line shares the stderr: on a busy machine it can come after the client's first line.
    expect(result.stderr.replace(/^diagnostics agent pid \d+\n/m, '')).toBe(
      'Waiting for the agent to answer initialize… (giving up after 2 s; --initialize-timeout changes that)\n' +
        'Error: The agent did not answer initialize within 2 s (--initialize-timeout). Is “node ' +
        `client-diagnostics-agent.mjs silent” an ACP agent that speaks JSON-RPC on stdout? A mirror (acpkit run --addr, ` +
        "acpremote mirror) waits like this when the remote agent does not answer: see the server's log.\n",
    );
    expect(result.code).toBe(1);
    expect(isAlive(pid)).toBe(false);
  });

  it('refuses an --initialize-timeout that is not a positive number of seconds', async () => {
    const result = await client(['--initialize-timeout', '0', '--prompt', 'hi', ...deploy.slice(2)]);
    expect(result.stderr).toContain("option '--initialize-timeout <seconds>' argument '0' is invalid.");
    expect(result.code).toBe(2);
  });

  it('shows the whole of a long error.data detail, not cut mid-word', async () => {
    const result = await client(['--prompt', 'hi', '--', process.execPath, diagnosticsAgent, 'no-init-wrap']);
    expect(result.stderr).toContain('or pass clientCapabilities to new AcpSessionContext(...).\n');
    expect(result.code).toBe(1);
  });

  it('goes on after a stray stdout line when the agent then speaks ACP', async () => {
    const result = await client([
      '--prompt',
      'hi',
      '--',
      process.execPath,
      diagnosticsAgent,
      'noise-then-acp',
    ]);
    expect(result.stderr).toContain('stdout that is not JSON-RPC; it was dropped');
    expect(result.stdout).toContain('Hello');
    expect(result.code).toBe(0);
  });

  it('names an agent without agentInfo by its command line, not the launcher', async () => {
    const result = await client(['--prompt', 'hi', '--', 'node', 'client-diagnostics-agent.mjs', 'no-info'], {
      cwd: fixturePath(''),
    });
    expect(result.stdout).toContain('Connected to the agent “node client-diagnostics-agent.mjs no-info”.');
    expect(result.code).toBe(0);
    const quoted = await client(
      ['--prompt', 'hi', '--', 'node', 'client-diagnostics-agent.mjs', 'no-info', 'say "hi"'],
      { cwd: fixturePath('') },
    );
    expect(quoted.stdout).toContain(
      `Connected to the agent “node client-diagnostics-agent.mjs no-info 'say "hi"'”.`,
    );
  });

  it.each(['/exit', '/EXIT', '/Quit'])(
    'ends on a piped %s instead of sending it as a prompt',
    async (command) => {
      const result = await client(['--', process.execPath, fixtureAgent, 'echo'], {
        input: `first\n${command}\nnever sent\n`,
      });
      expect(result.stdout).toContain('> first\nEcho: first\n');
      expect(result.stdout).not.toContain(command);
      expect(result.stdout).not.toContain('never sent');
      expect(result.code).toBe(0);
    },
  );

  it('prints choice labels, never the internal tokens, when it answers for a script', async () => {
    const result = await client(['--yes', ...deploy]);
    expect(result.stdout).toContain('  Choice: Production [default]\n');
    expect(result.stdout).not.toContain('choice_1');
    expect(result.code).toBe(0);
  });

  it('reports an agent that never started as one line: it exited before answering initialize, with its status', async () => {
    const result = await client(['--prompt', 'x', '--', process.execPath, '-e', 'process.exit(3)']);
    expect(result.stderr).toBe('Error: The agent exited before answering initialize (code 3).\n');
    expect(result.code).toBe(1);
  });
});

describe('acpkit client through a mirror (acpkit run --addr)', () => {
  const throughMirror = (url: string) => ['--', process.execPath, cliPaths.acpkit, 'run', '--addr', url];

  it('names a remote agent without agentInfo by its mirror command, its URL whole', async () => {
    const server = await startExpose([process.execPath, diagnosticsAgent, 'no-info']);
    const result = await client([
      '--prompt',
      'hi',
      ...throughMirror(server.url),
      '--resume-buffer-bytes',
      '16777216',
      '--unstable-protocol',
    ]);
    const connected = /Connected to the agent “(.*)”\./.exec(result.stdout)?.[1];
    expect(connected).toContain(`run --addr ${server.url} `);
    expect(connected?.endsWith(' …')).toBe(true);
  });

  it('reports the server’s verdict when the remote agent prints text instead of answering', async () => {
    const server = await startExpose([process.execPath, diagnosticsAgent, 'noise-only']);
    const result = await client([
      '--initialize-timeout',
      '30',
      '--prompt',
      'hi',
      ...throughMirror(server.url),
    ]);
    // The server answers initialize itself 2 s after the text: no initialize timeout runs out.
    expect(result.stderr).toContain(
      'The remote agent is not speaking ACP: it wrote text that is not JSON-RPC to stdout ("Agent starting up, please wait…")',
    );
    expect(result.stderr).not.toContain('--initialize-timeout).');
    expect(result.code).toBe(1);
    await server.process.waitForStderr(/agent stdout line is not a JSON-RPC object/);
    // The session ends with the client: nothing is kept for a resume.
    expect((await server.process.waitForStderr(/connection closed|session kept for resume/))[0]).toBe(
      'connection closed',
    );
  });

  it('ends a normal run quietly, and logs as acpkit, not acpremote', async () => {
    const server = await startExpose([process.execPath, fixtureAgent, 'echo']);
    // In a process of its own: the mirror's log lines reach the client's stderr.
    const result = await spawnedClient(['--prompt', 'hi', ...throughMirror(server.url)]);
    expect(result.stdout).toContain('Echo: hi');
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('local input ended');
    expect(result.stderr).not.toContain('acpremote');
    expect(result.stderr).toMatch(/^acpkit info: mirror connected/m);
  });
});

describe('acpkit client: a cancelled turn', () => {
  it('Ctrl+C (SIGINT) during a turn sends session/cancel; sessions.prompt ends it with stopReason cancelled', async () => {
    const processHandle = spawnCli('acpkit', [
      'client',
      '--prompt',
      'go',
      '--',
      process.execPath,
      diagnosticsAgent,
      'slow-turn',
    ]);
    processHandle.child.stdin?.end();
    await vi.waitFor(() => expect(processHandle.stdout()).toContain('Working…'), { timeout: 20_000 });
    processHandle.child.kill('SIGINT');
    const exit = await processHandle.closed;
    expect(processHandle.stdout()).toContain(
      'Working…\nCancelling the turn… (press Ctrl+C again to quit)\n(turn ended: cancelled)\n',
    );
    expect(processHandle.stderr()).toBe('');
    expect(exit.code).toBe(0);
  });
});
