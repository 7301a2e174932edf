// The test client against real SDK agent apps (in-process, over recorded message streams) and real stdio agent
// processes: scripted answers by the shared rules, functions, defaults, permissions, transcripts, and the failures.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RequestError } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AgentProcessError,
  connectTestClient,
  ScriptedAnswerError,
  spawnTestClient,
  type TestClient,
  TestingErrorCode,
} from '../src/index.js';
import { NON_ACP_GRACE_MS } from '../src/internal.js';
import { createScenarioAgent } from './support/agents.js';

const stdioAgent = fileURLToPath(new URL('./fixtures/stdio-agent.mjs', import.meta.url));

/** Whether a process is still there. The agent is our child: once reaped (its exit seen) its pid is gone. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
/** Live processes whose environment carries `ACPKIT_TEST_MARKER=marker` (Linux /proc; zombies are gone already). */
function processesWithMarker(marker: string): number[] {
  const needle = `ACPKIT_TEST_MARKER=${marker}`;
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return [];
    try {
      const environment = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      const zombie = /^\d+ \(.*\) Z /.test(readFileSync(`/proc/${entry}/stat`, 'latin1'));
      return environment.includes(needle) && !zombie ? [Number(entry)] : [];
    } catch {
      return []; // gone meanwhile, or not ours to read
    }
  });
}

const clients: TestClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function inProcess(options: Parameters<typeof connectTestClient>[1] = {}): Promise<TestClient> {
  const client = await connectTestClient(createScenarioAgent(), options);
  clients.push(client);
  return client;
}

async function spawned(scenario: string, options: Parameters<typeof spawnTestClient>[1] = {}) {
  const client = await spawnTestClient([process.execPath, stdioAgent, scenario], options);
  clients.push(client);
  return client;
}

describe('connectTestClient (in-process SDK agent app)', () => {
  it('initializes with form elicitation, opens a session, and answers a non-default choice by its title', async () => {
    const client = await inProcess({ answers: [{ Choice: 'Preview' }] });
    expect(client.initialize.agentInfo?.name).toBe('scenario-agent');
    expect(client.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const turn = await client.prompt('Deploy');
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toBe('Selected: preview');
    expect(turn.elicitations).toHaveLength(1);
    expect(turn.elicitations[0]?.request).toMatchObject({
      mode: 'form',
      message: 'Choose a deployment target',
      requestedSchema: { properties: { choice: { title: 'Choice', default: 'choice_1' } } },
    });
    expect(turn.elicitations[0]?.response).toEqual({ action: 'accept', content: { choice: 'choice_0' } });
    expect(turn.events.map((event) => event.kind)).toEqual([
      'elicitation-request',
      'session-update',
      'turn-end',
    ]);
    const initialize = client.messages.find(
      (entry) =>
        entry.direction === 'to-agent' && 'method' in entry.message && entry.message.method === 'initialize',
    );
    expect(initialize?.message).toMatchObject({
      params: { clientCapabilities: { elicitation: { form: {} } } },
    });
  });

  it('answers a multi-field form from one script and the next form from the next, in order', async () => {
    const client = await inProcess({
      answers: [
        { Choice: 'Production' },
        { 'Release name': 'r-1', Channels: ['Stable', 'Beta'], notify: 'no' },
      ],
    });
    const turn = await client.prompt('release');
    expect(turn.text).toBe(
      'Selected: productionRelease: accept {"name":"r-1","replicas":2,"notify":false,"channels":["stable","beta"]}',
    );
    expect(turn.elicitations[1]?.answers.map((answer) => [answer.field.name, answer.source])).toEqual([
      ['name', 'scripted'],
      ['replicas', 'default'],
      ['notify', 'scripted'],
      ['channels', 'scripted'],
    ]);
  });

  it('answers forms picked by title, as often as each is asked', async () => {
    const client = await inProcess({
      answers: {
        'Describe the release': { 'Release name': 'r-1', Channels: 'Beta' },
        'Choose a deployment target': { Choice: 'Preview' },
      },
    });
    const expected =
      'Selected: previewRelease: accept {"name":"r-1","replicas":2,"notify":true,"channels":["beta"]}';
    expect((await client.prompt('release')).text).toBe(expected);
    expect((await client.prompt('release')).text).toBe(expected);
  });

  it('fails the turn when no entry of the answers object names the form', async () => {
    const client = await inProcess({ answers: { 'Another form': 'decline' } });
    await expect(client.prompt('Deploy')).rejects.toMatchObject({
      code: TestingErrorCode.NoScriptLeft,
      message: expect.stringContaining('but the answers object has no answer for it'),
    });
  });

  it.each(['decline', 'cancel'] as const)('answers %s as scripted', async (action) => {
    const client = await inProcess({ answers: [action] });
    const turn = await client.prompt('Deploy');
    expect(turn.text).toBe(`Not selected: ${action === 'decline' ? 'declined' : 'cancelled'}`);
    expect(turn.elicitations[0]?.response).toEqual({ action });
  });

  it('answers with the defaults when no script is given, as acpkit client --yes does', async () => {
    const client = await inProcess();
    expect((await client.prompt('Deploy')).text).toBe('Selected: production');
  });

  it('lets a function answer: here with garbage, which askChoice must not take as a choice', async () => {
    const client = await inProcess({
      answers: () => ({ action: 'accept', content: { choice: 'choice_9' } }),
    });
    await expect(client.prompt('Deploy')).rejects.toBeInstanceOf(RequestError);
    expect(client.transcript[0]).toMatchObject({
      kind: 'elicitation-request',
      response: { action: 'accept', content: { choice: 'choice_9' } },
    });
  });

  it('fails the turn with a ScriptedAnswerError naming the form and field, and answers the agent cancel', async () => {
    const client = await inProcess({ answers: [{ Choice: 'Staging' }] });
    const error = await client.prompt('Deploy').catch((caught: unknown) => caught);
    expect(ScriptedAnswerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: TestingErrorCode.InvalidAnswer,
      form: 'Choose a deployment target',
      field: 'choice',
    });
    expect(client.transcript[0]).toMatchObject({
      kind: 'elicitation-request',
      response: { action: 'cancel' },
    });
  });

  it('fails the turn when the agent asks more forms than the list holds', async () => {
    const client = await inProcess({ answers: [{ Choice: 'Preview' }] });
    await expect(client.prompt('release')).rejects.toMatchObject({ code: TestingErrorCode.NoScriptLeft });
  });

  it('rejects a malformed script list before connecting', async () => {
    await expect(
      connectTestClient(createScenarioAgent(), { answers: [{ Choice: { deep: 1 } } as never] }),
    ).rejects.toMatchObject({ code: TestingErrorCode.InvalidScript });
  });

  it.each([
    ['allow', 'Permission: allow'],
    ['reject', 'Permission: reject'],
    ['cancel', 'Permission: cancelled'],
  ] as const)('answers permission requests with %s and records them', async (permissions, reply) => {
    const client = await inProcess({ permissions });
    const turn = await client.prompt('tool');
    expect(turn.text).toBe(`Selected: production${reply}`);
    expect(turn.permissions[0]?.request.toolCall.title).toBe('Run deploy script');
  });

  it("passes the agent's JSON-RPC error through, data included", async () => {
    const client = await inProcess();
    const error = await client.prompt('fail').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ code: -32603, data: { details: 'at most one choice may be the default' } });
    // A failing test shows why, not a bare "Internal error": the data's text is in the message.
    expect((error as RequestError).message).toBe(
      'Internal error (-32603): at most one choice may be the default',
    );
  });

  it('advertises what clientCapabilities says: without form, askChoice is told the client cannot show it', async () => {
    const client = await inProcess({ clientCapabilities: {} });
    await expect(client.prompt('Deploy')).rejects.toBeInstanceOf(RequestError);
    expect(client.transcript.filter((event) => event.kind === 'elicitation-request')).toEqual([]);
  });
});

describe('spawnTestClient (stdio agent process)', () => {
  it('answers a form of a real process from a script and returns the transcript', async () => {
    const client = await spawned('choice', { answers: [{ Target: 'Preview' }] });
    const turn = await client.prompt('Deploy');
    expect(turn.text).toBe('Selected: preview');
    expect(turn.stopReason).toBe('end_turn');
    expect(client.messages).toEqual([]);
  });

  it('drops a banner on stdout, records it, and goes on', async () => {
    const client = await spawned('noise-then-acp', { answers: ['decline'] });
    expect((await client.prompt('Deploy')).text).toBe('decline');
    expect(client.transcript[0]).toEqual({ kind: 'stdout-noise', preview: 'Starting the agent…' });
  });

  it('fails fast, naming the line, when the program prints text and never answers initialize', async () => {
    const error = await spawnTestClient([process.execPath, stdioAgent, 'noise-only']).catch(
      (caught: unknown) => caught,
    );
    expect(AgentProcessError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: TestingErrorCode.NotAnAcpAgent });
    expect((error as Error).message).toContain('("Starting the agent…")');
    expect((error as Error).message).toContain('stdio-agent.mjs noise-only” an ACP agent?');
  });

  it("rejects NOT_AN_ACP_AGENT within vitest's default 5 s, with the agent already reaped, when the program ignores stdin", {
    timeout: 5_000,
  }, async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'acpkit-testing-')), 'pid');
    const error = await spawnTestClient([process.execPath, stdioAgent, 'noise-and-idle', pidFile]).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: TestingErrorCode.NotAnAcpAgent });
    expect((error as Error).message).toContain(`within ${NON_ACP_GRACE_MS / 1000} s`);
    expect(isAlive(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it.each(['noise-flood', 'endless-line', 'brace-flood'])(
    'says NOT_AN_ACP_AGENT, not INITIALIZE_TIMEOUT, for a program that floods stdout before initialize (%s)',
    async (scenario) => {
      const error = await spawnTestClient([process.execPath, stdioAgent, scenario], {
        initializeTimeoutMs: 15_000,
      }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: TestingErrorCode.NotAnAcpAgent });
    },
  );

  it('rejects INITIALIZE_TIMEOUT after initializeTimeoutMs for an agent that says nothing, and reaps it', async () => {
    // Found by an inherited marker, not a pid file: under load the agent may be stopped before it could write one.
    const marker = `silent-${process.pid}-${Date.now()}`;
    const error = await spawnTestClient([process.execPath, stdioAgent, 'silent'], {
      initializeTimeoutMs: 500,
      env: { ...process.env, ACPKIT_TEST_MARKER: marker },
    }).catch((caught: unknown) => caught);
    expect(AgentProcessError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: TestingErrorCode.InitializeTimeout });
    expect((error as Error).message).toContain('did not answer initialize within 0.5 s');
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('refuses an initializeTimeoutMs that is not a positive number, before starting anything', async () => {
    for (const initializeTimeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(
        spawnTestClient([process.execPath, stdioAgent], { initializeTimeoutMs }),
      ).rejects.toMatchObject({
        name: 'OptionError',
        code: 'INVALID_OPTION',
        option: 'initializeTimeoutMs',
      });
    }
  });

  it('says the agent exited before answering initialize, with its exit code', async () => {
    await expect(spawnTestClient([process.execPath, stdioAgent, 'exit-at-start'])).rejects.toMatchObject({
      code: TestingErrorCode.AgentExited,
      message: 'The agent exited (code 4) before answering initialize.',
    });
  });

  it('reports the exit status when the agent dies during a turn', async () => {
    const client = await spawned('exit-in-turn');
    await expect(client.prompt('Deploy')).rejects.toMatchObject({
      code: TestingErrorCode.AgentExited,
      message: 'The agent exited (code 3).',
    });
  });

  it('rejects a command that cannot start', async () => {
    await expect(spawnTestClient(['acpkit-no-such-agent-command'])).rejects.toMatchObject({
      code: TestingErrorCode.AgentStartFailed,
    });
    await expect(spawnTestClient([])).rejects.toMatchObject({ code: TestingErrorCode.InvalidCommand });
  });
});

describe('bounded transcripts', () => {
  it('keeps a flooded turn within maxTranscriptEvents, with a truncated event counting the rest', async () => {
    const client = await spawned('update-flood', { maxTranscriptEvents: 1_000 });
    const turn = await client.prompt('flood');
    expect(turn.stopReason).toBe('end_turn');
    const updates = turn.events.filter((event) => event.kind === 'session-update');
    expect(updates).toHaveLength(1_000);
    expect(turn.events.at(-2)).toMatchObject({ kind: 'truncated', reason: 'limit', droppedEvents: 19_000 });
    expect(turn.events.at(-1)).toMatchObject({ kind: 'turn-end', stopReason: 'end_turn' });
    expect(turn.truncated).toBe(true);
    expect(client.transcript.filter((event) => event.kind === 'session-update')).toHaveLength(1_000);
  });

  it('keeps a flooded turn within maxTranscriptBytes', async () => {
    const client = await spawned('update-flood', { maxTranscriptBytes: 100_000 });
    const turn = await client.prompt('flood');
    const kept = turn.events.filter((event) => event.kind === 'session-update');
    const bytes = kept.reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event)), 0);
    expect(bytes).toBeLessThanOrEqual(100_000);
    expect(kept.length).toBeGreaterThan(50);
    const marker = turn.events.find((event) => event.kind === 'truncated');
    expect(marker).toMatchObject({ reason: 'limit', droppedEvents: 20_000 - kept.length });
    expect(marker && 'droppedBytes' in marker && marker.droppedBytes).toBeGreaterThan(19_000 * 1024);
  });

  it('applies the default limits: 10,000 events', async () => {
    const client = await spawned('update-flood');
    const turn = await client.prompt('flood');
    expect(turn.events.filter((event) => event.kind === 'session-update')).toHaveLength(10_000);
    expect(turn.events.find((event) => event.kind === 'truncated')).toMatchObject({ droppedEvents: 10_000 });
  });

  it('records the first 100 stdout noise lines as events, then only counts them', async () => {
    const client = await spawned('acp-and-noise');
    await client.prompt('noise');
    const noise = client.transcript.filter((event) => event.kind === 'stdout-noise');
    expect(noise).toHaveLength(100);
    await vi.waitFor(() =>
      expect(client.transcript.find((event) => event.kind === 'truncated')).toMatchObject({
        reason: 'stdout-noise',
        droppedEvents: 4_900,
      }),
    );
  });

  it('refuses limits that are not positive whole numbers', async () => {
    for (const maxTranscriptEvents of [0, -1, 1.5, Number.NaN]) {
      await expect(connectTestClient(createScenarioAgent(), { maxTranscriptEvents })).rejects.toMatchObject({
        name: 'OptionError',
        code: 'INVALID_OPTION',
        option: 'maxTranscriptEvents',
      });
    }
    await expect(connectTestClient(createScenarioAgent(), { maxTranscriptBytes: 0 })).rejects.toMatchObject({
      name: 'OptionError',
      code: 'INVALID_OPTION',
      option: 'maxTranscriptBytes',
      expected: 'a positive whole number',
      received: '0',
    });
  });

  it('bounds the recorded wire messages of an in-process agent by the same limits', async () => {
    const client = await inProcess({ maxTranscriptEvents: 3 });
    await client.prompt('Deploy');
    expect(client.messages).toHaveLength(3);
    expect(client.droppedMessages).toBeGreaterThan(0);
  });
});
