// `pnpm bench:soak`: the soak benchmark. Mixed traffic for `--minutes` (default 10) through the built CLIs with their
// default flags: an editor peer → `acpremote mirror` → a cut proxy → `acpremote expose -- node soak-agent.mjs`, and
// the same in front of `acpremote serve soak-agent.mjs:createSoakAgent`. Small echoes in bursts, 1 MiB and 16 MiB
// echoes, forms (each prompt asks one, the peer answers it, the turn's result carries the answer back), and every
// connection cut at intervals (the mirrors resume). Nothing may be lost, duplicated or stall, and no process may grow
// after the warm-up: at the end of every minute the traffic settles and each process runs a full GC and reports its
// live memory (V8 heap and Buffers) and its RSS; live memory may grow by less than 32 MiB from the warm-up's end to
// the run's end, and no minute's RSS after the warm-up may be 32 MiB or more over the warm-up's highest (see the
// judgement in main()). RSS between those collections is sampled and reported, not judged.
// A benchmark, not a test: it reports, writes results/soak.json, and exits 1 when a bound is missed.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type ProcessGroupChild, spawnProcessGroup } from '@acpkit/remote';
import { childrenOf } from './process-stats.js';
import { describeMachine, formatReadme } from './report.js';
import { type CutProxy, startCutProxy } from './soak/cut-proxy.js';
import { type Counts, DRIVER, GROWTH_BOUND_BYTES, MiB, renderSoak } from './soak/render-soak.js';
import { type SoakFaults, type SoakMessage, SoakPeer } from './soak/soak-peer.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    minutes: { type: 'string', default: '10' },
    'warmup-minutes': { type: 'string' },
    'cut-every-s': { type: 'string', default: '20' },
    output: { type: 'string' },
    'update-readme': { type: 'boolean', default: false },
  },
});

const minutes = Number(flags.minutes);
// The warm-up sets the RSS reference: what a process holds once rarer combinations of large messages in flight have
// happened (a 16 MiB echo during a cut and its replay). 4 of 10 minutes. Whole minutes: each ends with a measurement.
const warmupMinutes = Number(flags['warmup-minutes'] ?? Math.round((minutes * 2) / 5));
if (
  !Number.isInteger(minutes) ||
  !Number.isInteger(warmupMinutes) ||
  warmupMinutes < 1 ||
  warmupMinutes >= minutes
)
  throw new Error(
    `--minutes and --warmup-minutes must be whole numbers with 1 ≤ warm-up < minutes (got ${flags.minutes} and ${flags['warmup-minutes'] ?? 'the default'})`,
  );
const cutEveryMs = Number(flags['cut-every-s']) * 1000;
const output = flags.output ?? fileURLToPath(new URL('../results/soak.json', import.meta.url));
const ACPREMOTE = fileURLToPath(new URL('../../apps/acpremote/dist/cli.js', import.meta.url));
const AGENT = fileURLToPath(new URL('./fixtures/soak-agent.mjs', import.meta.url));
/** Loaded into every measured process: reports its live memory after a full GC when asked (soak/memory-probe.mjs). */
const PROBE = fileURLToPath(new URL('./soak/memory-probe.mjs', import.meta.url));
const PROBE_DIR = mkdtempSync(join(tmpdir(), 'acpkit-soak-'));
const README = fileURLToPath(new URL('../README.md', import.meta.url));
/** The bound on each process's RSS growth after the warm-up. */
/** An answer later than this counts as stalled (a 16 MiB echo through a cut and a resume takes seconds). */
const STALL_MS = 120_000;
const SAMPLE_EVERY_MS = 2_000;
/** The process of the soak itself: its RSS is reported, not judged (it keeps every answer's counters, not a relay's). */
/** How long the traffic gets to settle before and after the round trip that precedes a live-memory measurement. */
const SETTLE_MS = 1_000;
/** How long a process gets to write its memory report. */
const PROBE_TIMEOUT_MS = 15_000;
/** Unforced RSS samples are skipped this long after a measurement's forced GC. */
const RSS_PAUSE_AFTER_GC_MS = 10_000;
const SMALL = 'x'.repeat(300);
const ONE_MIB = 'm'.repeat(1024 * 1024);
/** Just under the 16 MiB default limit, envelope included, both ways. */
const HUGE = 'h'.repeat(16 * 1024 * 1024 - 8 * 1024);
/** At most one 16 MiB echo per path this often. */
const HUGE_EVERY_MS = 15_000;

const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);

/** A CLI process of the soak, its stderr scanned for warnings and errors (counted by message, not kept whole). */
interface Service {
  readonly name: string;
  readonly child: ProcessGroupChild;
  readonly warnings: Map<string, number>;
  readonly stderrLines: () => number;
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
}

function startService(name: string, args: readonly string[]): Service {
  const child = spawnProcessGroup([process.execPath, '--import', PROBE, ACPREMOTE, ...args], {
    env: { ...process.env, ACPKIT_SOAK_PROBE_DIR: PROBE_DIR },
    stdio: ['pipe', 'pipe', 'pipe'],
    terminateTimeoutMs: 5_000,
  });
  const warnings = new Map<string, number>();
  let lines = 0;
  let head = '';
  const waiters = new Set<() => void>();
  let pending = '';
  child.process.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n')) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      lines += 1;
      if (head.length < 4096) head += `${line}\n`;
      // `acpremote warn: message key=value …`: counted by message.
      const match = /^acpremote (warn|error): (.*?)(?: [a-zA-Z]+=|$)/.exec(line);
      if (match)
        warnings.set(`${match[1]}: ${match[2]}`, (warnings.get(`${match[1]}: ${match[2]}`) ?? 0) + 1);
    }
    for (const waiter of [...waiters]) waiter();
  });
  return {
    name,
    child,
    warnings,
    stderrLines: () => lines,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = head.match(pattern);
          if (match) {
            waiters.delete(check);
            resolve(match);
          }
        };
        waiters.add(check);
        check();
        void child.exited.then(() => reject(new Error(`${name} exited before ${pattern}:\n${head}`)));
      }),
  };
}

function rssBytes(pid: number): number | undefined {
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/** What a process holds after a full GC with nothing in flight (memory-probe.mjs's report), in bytes. */
interface LiveMemory {
  heapUsed: number;
  external: number;
  rss: number;
}

/** The live memory the judgement compares: V8's heap plus the memory its objects own outside it (Buffers). */
const liveBytes = (memory: LiveMemory) => memory.heapUsed + memory.external;

/**
 * Asks each process (SIGUSR2) for report number `round` of its memory probe and waits for it. A process without the
 * probe (one that died) gives no report and is left out.
 */
async function readProbes(
  processes: ReadonlyArray<{ name: string; pid: number }>,
  round: number,
): Promise<Record<string, LiveMemory>> {
  const reports: Record<string, LiveMemory> = {};
  for (const { pid } of processes) {
    try {
      process.kill(pid, 'SIGUSR2');
    } catch {
      // gone: no report
    }
  }
  const deadline = Date.now() + PROBE_TIMEOUT_MS;
  for (const { name, pid } of processes) {
    const file = join(PROBE_DIR, `${pid}.json`);
    for (;;) {
      const report = existsSync(file)
        ? (JSON.parse(readFileSync(file, 'utf8')) as LiveMemory & { report: number })
        : undefined;
      if (report !== undefined && report.report >= round) {
        reports[name] = { heapUsed: report.heapUsed, external: report.external, rss: report.rss };
        break;
      }
      if (Date.now() > deadline) {
        log(`no memory report from ${name} (pid ${pid})`);
        break;
      }
      await delay(100);
    }
  }
  return reports;
}

/**
 * Lets the traffic settle, then reads every process's live memory: each path's operations have finished (the caller
 * awaited them), a resume a last cut started completes, one more round trip proves each path flows again, and its
 * acknowledgements (sent within 100 ms) are exchanged. Nothing is in flight then but what a process keeps.
 */
async function settleAndMeasure(
  paths: readonly SoakPath[],
  processes: ReadonlyArray<{ name: string; pid: number }>,
  round: number,
): Promise<Record<string, LiveMemory>> {
  await delay(SETTLE_MS);
  await Promise.all(paths.map((path) => path.roundTrip()));
  await delay(SETTLE_MS);
  return readProbes(processes, round);
}

/** One editor → mirror → proxy → server path and its traffic. */
class SoakPath {
  readonly counts: Counts = { smallEchoes: 0, oneMiBEchoes: 0, hugeEchoes: 0, forms: 0, echoedBytes: 0 };
  private seq = 0;
  private sessionId = '';
  private lastHuge = 0;

  constructor(
    readonly name: string,
    readonly mirror: Service,
    readonly proxy: CutProxy,
    readonly peer: SoakPeer,
  ) {}

  async open(): Promise<void> {
    const initialized = await this.peer.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { elicitation: { form: {} } },
      clientInfo: { name: 'acpkit-soak', version: '0.0.0' },
    });
    if (initialized.result === undefined) throw new Error(`${this.name}: initialize failed`);
    const session = await this.peer.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    this.sessionId = String(session.result?.sessionId);
  }

  /** Runs mixed operations until `end` (a `Date.now()` value). */
  async run(end: number): Promise<void> {
    while (Date.now() < end) {
      const roll = Math.random();
      if (roll < 0.5) await this.smallBurst();
      else if (roll < 0.8) await this.form();
      else if (Date.now() - this.lastHuge >= HUGE_EVERY_MS && roll > 0.95) await this.echo(HUGE, 'huge');
      else await this.echo(ONE_MIB, 'one');
      // Leave the machine some air: a soak measures endurance, not peak throughput.
      await delay(5);
    }
  }

  /** One small echo, waited for: proves the path flows (after a cut, once the mirror has resumed). */
  roundTrip(): Promise<void> {
    return this.echo(SMALL, 'small');
  }

  private async smallBurst(): Promise<void> {
    await Promise.all(Array.from({ length: 32 }, () => this.echo(SMALL, 'small')));
  }

  private async echo(pad: string, kind: 'small' | 'one' | 'huge'): Promise<void> {
    const seq = ++this.seq;
    if (kind === 'huge') this.lastHuge = Date.now();
    const answer = await this.peer.request('_soak/echo', { seq, pad });
    if (answer.error !== undefined) return;
    if (answer.result?.seq !== seq || answer.result.pad?.length !== pad.length) {
      this.peer.fault('errors', `echo #${seq}: a different answer came back`);
      return;
    }
    this.counts.echoedBytes += pad.length;
    if (kind === 'small') this.counts.smallEchoes += 1;
    else if (kind === 'one') this.counts.oneMiBEchoes += 1;
    else this.counts.hugeEchoes += 1;
  }

  private async form(): Promise<void> {
    const text = `form-${++this.seq}`;
    const answer: SoakMessage = await this.peer.request('session/prompt', {
      sessionId: this.sessionId,
      prompt: [{ type: 'text', text }],
    });
    if (answer.error !== undefined) return;
    const meta = answer.result?._meta as { answered?: unknown } | undefined;
    if (meta?.answered !== `ok:${text}`) {
      this.peer.fault('errors', `${text}: the turn ended with ${JSON.stringify(meta)}`);
      return;
    }
    this.counts.forms += 1;
  }
}

interface Sample {
  atMs: number;
  rss: Record<string, number>;
}

const mib = (bytes: number) => (bytes / MiB).toFixed(1);

async function main(): Promise<number> {
  const machine = describeMachine();
  log(`${minutes} min (warm-up ${warmupMinutes} min), cuts every ${cutEveryMs / 1000} s`);
  const expose = startService('expose', [
    'expose',
    '--port',
    '0',
    '--',
    process.execPath,
    '--import',
    PROBE,
    AGENT,
  ]);
  const serve = startService('serve', ['serve', `${AGENT}:createSoakAgent`, '--port', '0']);
  const services = [expose, serve];
  const banner = /Serving ACP WebSocket at ws:\/\/127\.0\.0\.1:(\d+)\/acp\/ws/;
  const paths: SoakPath[] = [];
  for (const server of [expose, serve]) {
    const port = Number((await server.waitFor(banner))[1]);
    const proxy = await startCutProxy(port);
    const mirror = startService(`mirror → ${server.name}`, ['mirror', `ws://127.0.0.1:${proxy.port}/acp/ws`]);
    services.push(mirror);
    const { stdin, stdout } = mirror.child.process;
    if (!stdin || !stdout) throw new Error('the mirror has no stdio');
    const path = new SoakPath(server.name, mirror, proxy, new SoakPeer(stdin, stdout, STALL_MS));
    await path.open();
    paths.push(path);
  }

  const started = Date.now();
  const end = started + minutes * 60_000;
  const warmupEnd = started + warmupMinutes * 60_000;
  /** Every process measured, by name: the CLIs, the agents `expose` started, and the driver itself. */
  const measured = (): Array<{ name: string; pid: number }> => {
    const list: Array<{ name: string; pid: number }> = [];
    for (const service of services) {
      const pid = service.child.process.pid;
      if (pid !== undefined) list.push({ name: service.name, pid });
    }
    const exposePid = expose.child.process.pid;
    for (const [index, pid] of (exposePid === undefined ? [] : childrenOf(exposePid)).entries())
      list.push({ name: `expose agent ${index + 1}`, pid });
    return list;
  };
  const samples: Sample[] = [];
  /** No cuts while the traffic settles for a live-memory measurement. */
  let quiet = false;
  /** RSS samples are not kept while the traffic settles and for a while after the measurement's forced GC. */
  let sampleRssFrom = 0;
  const sample = () => {
    if (quiet || Date.now() < sampleRssFrom) return;
    const rss: Record<string, number> = {};
    for (const { name, pid } of measured()) {
      const bytes = rssBytes(pid);
      if (bytes !== undefined) rss[name] = bytes;
    }
    rss[DRIVER] = process.memoryUsage.rss();
    samples.push({ atMs: Date.now() - started, rss });
  };
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  let cutTurn = 0;
  const cutter = setInterval(() => {
    if (quiet) return;
    const path = paths[cutTurn++ % paths.length]!;
    path.proxy.cutAll();
  }, cutEveryMs);
  const progress = setInterval(() => {
    const elapsed = Math.round((Date.now() - started) / 1000);
    const done = paths.map((path) => `${path.name} ${JSON.stringify(path.counts)}`).join('; ');
    log(`${elapsed} s: ${done}`);
  }, 60_000);
  /** Settles the traffic (no cut, nothing in flight) and reads every process's live memory. */
  const measureLive = async (round: number) => {
    quiet = true;
    const live = await settleAndMeasure(paths, measured(), round);
    log(
      `live memory ${round}: ${Object.entries(live)
        .map(([name, m]) => `${name} ${mib(liveBytes(m))}`)
        .join(', ')}`,
    );
    quiet = false;
    // The forced GC may hand pages back: RSS samples right after it would not show what a process holds on its own.
    sampleRssFrom = Date.now() + RSS_PAUSE_AFTER_GC_MS;
    return live;
  };

  /** What every process holds after a full GC at the end of each minute, minute 1 first. */
  const afterGc: Array<Record<string, LiveMemory>> = [];
  for (let minute = 1; minute <= minutes; minute += 1) {
    await Promise.all(paths.map((path) => path.run(Math.min(started + minute * 60_000, end))));
    if (minute === minutes) {
      clearInterval(cutter);
      clearInterval(progress);
      sample();
      clearInterval(sampler);
    }
    afterGc.push(await measureLive(minute));
  }
  const liveAtWarmup = afterGc[warmupMinutes - 1]!;
  const liveAtEnd = afterGc[minutes - 1]!;

  // Shut down as users do: stdin EOF for the mirrors (exit 0), SIGTERM for the servers (a drain: exit 0).
  const exits: Record<string, number | null> = {};
  for (const path of paths) {
    path.mirror.child.process.stdin?.end();
    exits[path.mirror.name] = (await path.mirror.child.exited).code;
    await path.proxy.close();
  }
  for (const server of [expose, serve]) {
    server.child.signal('SIGTERM');
    exits[server.name] = (await server.child.exited).code;
  }
  for (const service of services) await service.child.terminate();
  rmSync(PROBE_DIR, { recursive: true, force: true });

  // Two judgements per process (see README, "Soak"), both on what it holds after a full GC with nothing in flight.
  // Live memory, the leak check: V8 heap plus Buffers may grow by less than the bound from the warm-up's end to the
  // run's end. RSS, flat after the warm-up: no minute's RSS after the warm-up may be the bound or more above the
  // highest of a warm-up minute; against the highest, not the last, because the allocator keeps freed message
  // buffers for reuse (measured: glibc gave back 77 of 177 MiB on malloc_trim) and its share moves from minute to
  // minute. RSS between the collections is reported, not judged: V8 lets the old generation grow to a multiple of
  // what was live at its last full collection, and with a 16 MiB message live then, that is 100 MiB or more of
  // garbage; so a minute's unforced floor measures when the collector ran (233 → 153 MiB from one minute to the next
  // on `serve`, its live memory flat), not what the process keeps.
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.rss)))];
  const minuteOf = (sample: Sample) => Math.floor(sample.atMs / 60_000);
  const memory = names.map((name) => {
    const values = (list: Sample[]) => list.flatMap((s) => (s.rss[name] === undefined ? [] : [s.rss[name]!]));
    const afterWarmup = values(samples.filter((s) => s.atMs > warmupEnd - started));
    const liveBefore = liveAtWarmup[name];
    const liveAfter = liveAtEnd[name];
    const liveGrowth =
      liveBefore === undefined || liveAfter === undefined
        ? Number.NaN
        : liveBytes(liveAfter) - liveBytes(liveBefore);
    const bounded = name !== DRIVER;
    // The run's minutes only, not the settling and shutdown after it. A minute without a report (the process died)
    // has no RSS after GC: NaN, which fails the bound.
    const perMinute = Array.from({ length: minutes }, (_, minute) => {
      const inMinute = values(samples.filter((s) => minuteOf(s) === minute));
      const rssAfterGc = afterGc[minute]?.[name]?.rss ?? Number.NaN;
      return {
        minute,
        rssAfterGcBytes: rssAfterGc,
        rssAfterGcMiB: Number(mib(rssAfterGc)),
        floorMiB: Number(mib(Math.min(...inMinute))),
        peakMiB: Number(mib(Math.max(...inMinute))),
      };
    });
    const highest = (list: typeof perMinute) => Math.max(...list.map((minute) => minute.rssAfterGcBytes));
    const warmupRss = highest(perMinute.slice(0, warmupMinutes));
    const rssAfterWarmup = highest(perMinute.slice(warmupMinutes));
    const rssOverWarmup = rssAfterWarmup - warmupRss;
    const within = (bytes: number) => Number.isFinite(bytes) && bytes < GROWTH_BOUND_BYTES;
    return {
      process: name,
      maxAfterWarmupMiB: Number(mib(Math.max(...afterWarmup))),
      highestFloorAfterWarmupMiB: Math.max(
        ...perMinute.slice(warmupMinutes).map((minute) => minute.floorMiB),
      ),
      warmupRssAfterGcMiB: Number(mib(warmupRss)),
      rssAfterGcAfterWarmupMiB: Number(mib(rssAfterWarmup)),
      overWarmupRssMiB: Number(mib(rssOverWarmup)),
      live:
        liveBefore === undefined || liveAfter === undefined
          ? undefined
          : {
              warmup: {
                heapMiB: Number(mib(liveBefore.heapUsed)),
                externalMiB: Number(mib(liveBefore.external)),
              },
              end: { heapMiB: Number(mib(liveAfter.heapUsed)), externalMiB: Number(mib(liveAfter.external)) },
              growthMiB: Number(mib(liveGrowth)),
            },
      withinBound: !bounded || (within(rssOverWarmup) && within(liveGrowth)),
      minutes: perMinute.map(({ rssAfterGcBytes: _bytes, ...minute }) => minute),
    };
  });
  const resumes = paths.map((path) => ({ path: path.name, cuts: path.proxy.cuts }));
  const faults: Record<string, SoakFaults> = Object.fromEntries(paths.map((p) => [p.name, p.peer.faults]));
  const lost = Object.values(faults).reduce((sum, f) => sum + f.errors + f.unexpected + f.stalled, 0);
  const cleanExits = Object.values(exits).every((code) => code === 0);
  const warnings = Object.fromEntries(services.map((s) => [s.name, Object.fromEntries(s.warnings)]));
  const passed = lost === 0 && cleanExits && memory.every((entry) => entry.withinBound);
  const result = {
    startedAt: new Date(started).toISOString(),
    machine,
    minutes,
    warmupMinutes,
    cutEverySeconds: cutEveryMs / 1000,
    counts: Object.fromEntries(paths.map((path) => [path.name, path.counts])),
    formsAnswered: Object.fromEntries(paths.map((path) => [path.name, path.peer.formsAnswered])),
    cuts: resumes,
    faults,
    exits,
    warnings,
    memory,
    passed,
  };
  mkdirSync(new URL('../results/', import.meta.url), { recursive: true });
  writeFileSync(output, `${JSON.stringify(result, null, 2)}\n`);
  const markdown = renderSoak(result);
  process.stdout.write(`${markdown}\n`);
  if (flags['update-readme']) {
    const readme = readFileSync(README, 'utf8');
    const updated = readme.replace(
      /<!-- soak:start -->[\s\S]*<!-- soak:end -->/,
      `<!-- soak:start -->\n${markdown}\n<!-- soak:end -->`,
    );
    writeFileSync(README, updated);
    if (!formatReadme()) log('run biome format on README.md');
  }
  log(passed ? 'passed' : 'FAILED');
  return passed ? 0 : 1;
}

process.exitCode = await main();
