// One editor turn through a mirror CLI (`acpremote mirror` / `acpkit run --addr`): an SDK client on the mirror's stdio
// runs initialize → session/new → session/prompt and answers the agent's elicitation, then closes the mirror's stdin.
import type { CreateElicitationRequest } from '@agentclientprotocol/sdk';
import {
  connectTestClient,
  type ElicitationAnswerer,
  type PromptTurn,
  processStream,
  runPromptTurn,
} from './acp-client.js';
import type { ProcessExit, SpawnProcessOptions } from './processes.js';
import { type MirrorCli, spawnMirror } from './remote-servers.js';

/** What {@link runMirrorTurn} saw. */
export interface MirrorTurn {
  readonly turn: PromptTurn;
  /** Every `elicitation/create` the editor received. */
  readonly elicitations: readonly CreateElicitationRequest[];
  /** How the mirror exited once its stdin closed (a clean end is `{ code: 0, signal: null }`). */
  readonly exit: ProcessExit;
}

/** Spawns `mirror URL flags`, runs one turn with `prompt` answered by `answer`, ends the mirror and waits for it. */
export async function runMirrorTurn(
  mirror: MirrorCli,
  url: string,
  answer: ElicitationAnswerer,
  options: { flags?: readonly string[]; prompt?: string; spawn?: SpawnProcessOptions } = {},
): Promise<MirrorTurn> {
  const spawned = spawnMirror(mirror, url, options.flags, options.spawn);
  const client = connectTestClient(processStream(spawned), answer);
  const turn = await runPromptTurn(client, options.prompt ?? 'deploy');
  spawned.child.stdin?.end();
  return { turn, elicitations: client.elicitations, exit: await spawned.exited };
}
