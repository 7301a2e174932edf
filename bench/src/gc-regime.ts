// The garbage-collection reproduction of the README's "Analysis": for each path given, the relay process's CPU per
// 16 KiB message (pipelined, window 16, 500 ms slices) in three slices before any large message, then in three slices
// each after a 1 MiB slice and one 16 MiB message. Run it with the hosts' GC traced, e.g.
//   ACPKIT_BENCH_NODE_FLAGS=--trace-gc node --import tsx src/gc-regime.ts minimal-relay,serve-command | grep -c Mark
// (a relay in the regime shows tens of mark-compacts where the minimal relay shows one or two). `--trace-gc` writes
// to stdout, which a mirror's JSON-RPC uses: trace the relay paths only; the chains run untraced.
import { echoParams, measureOne, measurePipelined } from './measure.js';
import { paths } from './paths.js';
import { difference, readCounters } from './process-stats.js';

const wanted = (process.argv[2] ?? 'minimal-relay,serve-command').split(',');
const medium = echoParams(16 * 1024);
const large = echoParams(1024 * 1024);
const huge = echoParams(16 * 1024 * 1024 - 1024);

for (const id of wanted) {
  const path = paths.find((candidate) => candidate.id === id);
  if (!path) throw new Error(`unknown path ${id}`);
  const open = await path.open();
  try {
    const relay = open.processes.find((process) => process.role === 'relay');
    if (!relay) throw new Error(`${id} has no relay process`);
    const slice = async () => {
      const before = readCounters(relay.pid);
      const result = await measurePipelined(open.client, medium, 16, 500);
      const after = readCounters(relay.pid);
      if (!before || !after) throw new Error(`relay ${relay.pid} is gone`);
      return (difference(after, before).cpuNs / 1000 / result.messages).toFixed(1);
    };
    const fresh = [await slice(), await slice(), await slice()];
    const afterLarge: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      await measurePipelined(open.client, large, 4, 500);
      await measureOne(open.client, huge);
      afterLarge.push(await slice());
    }
    console.log(
      `${id}: relay µs CPU per 16 KiB message, before large messages ${fresh.join(' ')}; after ${afterLarge.join(' ')}`,
    );
  } finally {
    await open.close();
  }
}
