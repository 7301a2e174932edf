// The session stores (@acpkit/sessions): what one turn's save costs at 10, 1,000 and 10,000 messages per session,
// and what a session/list page costs over 10,000 sessions, per store (memory, file, SQLite, a real Postgres started
// for the run). Wall-clock time, as a turn waits for it (fsync and round trips included). A turn's save is what the
// AI SDK adapter writes: one entry of two model messages and two transcript updates. Flat means the turn appends,
// never rewrites: the figure at 10,000 messages is compared with the one at 10 in the same run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileSessionStore, memorySessionStore, type SessionStore } from '@acpkit/sessions';
import { postgresSessionStore } from '@acpkit/sessions/postgres';
import { sqliteSessionStore } from '@acpkit/sessions/sqlite';
import { startPostgres } from '@acpkit/test-support/postgres';
import type { FigureRecord } from './report.js';

/** Messages per session the turn write is measured at. */
export const SESSION_SIZES = [10, 1_000, 10_000] as const;
/** Sessions `session/list` pages over. */
const LISTED_SESSIONS = 10_000;
/** Turn saves measured per size and round. */
const SAVES_PER_ROUND = 50;
const LISTS_PER_ROUND = 20;

/** One turn as the AI SDK adapter saves it: a user and an assistant message, and their transcript updates. */
function turnEntry(index: number) {
  const user = `Please look at item ${index} of the release checklist and tell me what is left.`;
  const answer = `Item ${index} is done except for the changelog entry; I will draft it next.`;
  return {
    messages: [
      { role: 'user', content: [{ type: 'text', text: user }] },
      { role: 'assistant', content: [{ type: 'text', text: answer }] },
    ],
    transcript: [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: user } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: answer } },
    ],
  };
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

interface StoreUnderTest {
  readonly name: string;
  make(): Promise<SessionStore>;
}

/** A session of `messages` messages, written in batches of 500 turns (setup, not measured). */
async function prefill(
  store: SessionStore,
  sessionId: string,
  messages: number,
  cwd = '/bench',
): Promise<number> {
  let version = 0;
  for (let turn = 0; turn < messages / 2; turn += 500) {
    const count = Math.min(500, messages / 2 - turn);
    const append = Array.from({ length: count }, (_, index) => turnEntry(turn + index));
    version = (await store.save({ sessionId, expectedVersion: version, cwd, append })).version;
  }
  return version;
}

/** Median over rounds of each round's p50 save time (µs) for one store and size. */
async function turnWrites(store: SessionStore, size: number, round: number): Promise<number> {
  const sessionId = `write-${size}-${round}`;
  let version = await prefill(store, sessionId, size);
  const times: number[] = [];
  for (let save = 0; save < SAVES_PER_ROUND; save += 1) {
    const started = performance.now();
    version = (
      await store.save({ sessionId, expectedVersion: version, cwd: '/bench', append: [turnEntry(save)] })
    ).version;
    times.push((performance.now() - started) * 1_000);
  }
  return percentile(times, 0.5);
}

/** p50 of a first `session/list` page over LISTED_SESSIONS sessions (µs), all sessions and one cwd of ten. */
async function listPages(store: SessionStore): Promise<{ all: number; cwd: number }> {
  for (let start = 0; start < LISTED_SESSIONS; start += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, offset) =>
        prefill(store, `list-${start + offset}`, 10, `/project-${(start + offset) % 10}`),
      ),
    );
  }
  const time = async (cwd?: string) => {
    const times: number[] = [];
    for (let index = 0; index < LISTS_PER_ROUND; index += 1) {
      const started = performance.now();
      const page = await store.list?.({ cwd });
      times.push((performance.now() - started) * 1_000);
      if (page?.sessions.length !== 50) throw new Error(`a list page held ${page?.sessions.length} sessions`);
    }
    return percentile(times, 0.5);
  };
  return { all: await time(), cwd: await time('/project-3') };
}

/** Runs the section: per store, turn-write p50 at each size (one value per round) and the list p50s. */
export async function runSessionsSection(options: {
  repeats: number;
  log: (line: string) => void;
}): Promise<FigureRecord[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'acpkit-bench-sessions-'));
  const postgres = await startPostgres();
  let schemas = 0;
  const stores: StoreUnderTest[] = [
    {
      name: 'memory',
      make: async () => memorySessionStore({ maxSessions: 20_000, maxTotalBytes: 4 * 1024 ** 3 }),
    },
    {
      name: 'file',
      make: async () => fileSessionStore({ directory: await mkdtemp(join(scratch, 'file-')) }),
    },
    {
      name: 'sqlite',
      make: async () => sqliteSessionStore({ path: join(await mkdtemp(join(scratch, 'db-')), 's.db') }),
    },
    {
      name: 'postgres',
      make: async () =>
        postgresSessionStore({ connectionString: postgres.connectionString, schema: `bench_${++schemas}` }),
    },
  ];
  const records: FigureRecord[] = [];
  try {
    for (const { name, make } of stores) {
      const writes = new Map<number, number[]>(SESSION_SIZES.map((size) => [size, []]));
      const store = await make();
      try {
        // Round 0 warms up (JIT, connections, the file system's caches) and is not recorded.
        for (let round = 0; round <= options.repeats; round += 1) {
          for (const size of SESSION_SIZES) {
            const p50 = await turnWrites(store, size, round);
            if (round > 0) writes.get(size)?.push(p50);
          }
        }
      } finally {
        await store.close();
      }
      const listing = await make();
      let list: { all: number; cwd: number };
      try {
        list = await listPages(listing);
      } finally {
        await listing.close();
      }
      const small = writes.get(SESSION_SIZES[0]) ?? [];
      for (const size of SESSION_SIZES) {
        records.push({
          section: 'sessions',
          path: `sessions-${name}`,
          pathLabel: `${name} store: a turn's save, session of ${size.toLocaleString('en-US')} messages`,
          figure: `turn-write-p50-${size}`,
          unit: 'µs',
          kind: 'time',
          values: writes.get(size) ?? [],
          ...(size === SESSION_SIZES[0]
            ? {}
            : { baselineValues: small, baselineLabel: 'the same at 10 messages' }),
        });
      }
      records.push(
        {
          section: 'sessions',
          path: `sessions-${name}`,
          pathLabel: `${name} store: session/list first page (50) of ${LISTED_SESSIONS.toLocaleString('en-US')} sessions`,
          figure: 'list-p50',
          unit: 'µs',
          kind: 'time',
          values: [list.all],
        },
        {
          section: 'sessions',
          path: `sessions-${name}`,
          pathLabel: `${name} store: session/list first page (50) of one cwd's 1,000 of 10,000 sessions`,
          figure: 'list-cwd-p50',
          unit: 'µs',
          kind: 'time',
          values: [list.cwd],
        },
      );
      options.log(`sessions: ${name} done`);
    }
  } finally {
    await postgres.stop();
    await rm(scratch, { recursive: true, force: true });
  }
  return records;
}
