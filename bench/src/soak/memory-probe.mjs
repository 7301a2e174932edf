// Loaded into every process the soak measures (`node --import memory-probe.mjs ...`). On SIGUSR2 it runs a full
// garbage collection and writes what the process holds then (V8 heap used, external memory: Buffers and other
// memory V8 objects own, and RSS) to `$ACPKIT_SOAK_PROBE_DIR/<pid>.json`. The soak sends the signal at quiet
// moments (no message in flight), so two reports compare what the process keeps, apart from the freed memory its
// allocator caches (which RSS counts). It does nothing else: no timer, no GC between signals.
import { renameSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const directory = process.env.ACPKIT_SOAK_PROBE_DIR;
if (directory) {
  setFlagsFromString('--expose-gc');
  /** A full, synchronous garbage collection (the `gc` that `--expose-gc` gives a fresh context). */
  const collect = runInNewContext('gc');
  let reports = 0;
  process.on('SIGUSR2', () => {
    collect();
    // ArrayBuffer memory is freed by a sweeper after the collection: read the counters a moment later.
    setTimeout(() => {
      collect();
      const usage = process.memoryUsage();
      reports += 1;
      const file = `${directory}/${process.pid}.json`;
      const report = {
        report: reports,
        heapUsed: usage.heapUsed,
        external: usage.external,
        arrayBuffers: usage.arrayBuffers,
        rss: usage.rss,
      };
      writeFileSync(`${file}.tmp`, JSON.stringify(report));
      renameSync(`${file}.tmp`, file);
    }, 100).unref();
  });
}
