// The five-minute path of docs/ai-sdk.md with the built CLIs and real processes: the AI SDK example agent
// (`@acpkit/ai-sdk`, its offline scripted model) answering in `acpkit client --answers FILE`, run over stdio and
// served by `acpremote serve` behind `acpkit run --addr`. The question is answered from the file; the deploy
// permission is allowed automatically (no terminal).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { aiSdkAgent, cliPaths } from './support/paths.js';
import { reapAll, spawnCli, withoutSlowStartNotice } from './support/processes.js';
import { startServe } from './support/remote-servers.js';

const scratchDirectories: string[] = [];
/** The scripted model, unpaced, whatever the machine's environment says. */
const offline = { AI_GATEWAY_API_KEY: '', ACPKIT_EXAMPLE_CHUNK_DELAY_MS: '0' };

afterEach(async () => {
  await reapAll();
  for (const directory of scratchDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function answersFile(content: unknown): string {
  const directory = mkdtempSync(join(tmpdir(), 'acpkit-ai-sdk-answers-'));
  scratchDirectories.push(directory);
  const file = join(directory, 'answers.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

/** `acpkit client --answers FILE --prompt 'Release checkout-service' -- AGENT...` with one scripted choice. */
async function releaseConversation(choice: string, agent: readonly string[]) {
  const answers = answersFile([{ Choice: choice }]);
  const client = spawnCli(
    'acpkit',
    ['client', '--answers', answers, '--prompt', 'Release checkout-service', '--', ...agent],
    { env: offline },
  );
  client.child.stdin?.end();
  const exit = await client.closed;
  return { ...exit, answers, stdout: client.stdout(), stderr: client.stderr() };
}

/** What `acpkit client` prints for the release conversation, from the question on. */
function conversation(environment: 'staging' | 'production', choice: string, answers: string): string {
  return [
    'Let me ask where to deploy. ',
    '⚙ Ask: Which environment should checkout-service 1.4.2 go to? … in_progress',
    '? Release helper (AI SDK example) (release-helper 0.0.0) asks: Which environment should checkout-service 1.4.2 go to?',
    `  Choice: ${choice} [${answers}]`,
    `  Answered from ${answers}: accept`,
    '✓ Ask: Which environment should checkout-service 1.4.2 go to? completed',
    `Deploying checkout-service 1.4.2 to ${environment}. `,
    `⚙ Deploy checkout-service 1.4.2 to ${environment} (execute) … pending`,
    `? Release helper (AI SDK example) (release-helper 0.0.0) asks permission: Deploy checkout-service 1.4.2 to ${environment}`,
    '  Answered automatically (--yes or no terminal): Allow once [allow_once]',
    `… Deploy checkout-service 1.4.2 to ${environment} in_progress`,
    `✓ Deploy checkout-service 1.4.2 to ${environment} completed`,
    `Done: checkout-service 1.4.2 is live. {"service":"checkout-service","version":"1.4.2","environment":"${environment}","status":"deployed"}`,
  ].join('\n');
}

describe('the AI SDK example agent in acpkit client --answers', () => {
  it('over stdio: streams, asks where to deploy (answered from the file), asks permission, deploys', async () => {
    const result = await releaseConversation('Production', [process.execPath, aiSdkAgent.directory]);
    expect(result.stdout).toContain('Connected to Release helper (AI SDK example) (release-helper 0.0.0).\n');
    expect(result.stdout).toContain(conversation('production', 'Production', result.answers));
    expect(withoutSlowStartNotice(result.stderr)).toBe('');
    expect(result.code).toBe(0);
  });

  it('served by acpremote serve and mirrored by acpkit run --addr: the same conversation', async () => {
    const server = await startServe(aiSdkAgent.module, [], { env: offline });
    const result = await releaseConversation('Staging', [
      process.execPath,
      cliPaths.acpkit,
      'run',
      '--addr',
      server.url,
    ]);
    expect(result.stdout).toContain(conversation('staging', 'Staging', result.answers));
    expect(result.code).toBe(0);
  });
});
