// `pnpm bench:soak`: the soak benchmark. Mixed traffic for `--minutes` (default 10) through the built CLIs with their
// default flags: an editor peer → `acpremote mirror` → a cut proxy → `acpremote expose -- node soak-agent.mjs`, and
// the same in front of `acpremote serve soak-agent.mjs:createSoakAgent`. Small echoes in bursts, 1 MiB and 16 MiB
// echoes, forms (each prompt asks one, the peer answers it, the turn's result carries the answer back), and every
// connection cut at intervals (the mirrors resume). Nothing may be lost, duplicated or stall, and the RSS of every
// process must stay flat after the warm-up: its floor (the least RSS in a minute, between large messages) may grow by
// less than 32 MiB from the warm-up's last minute to the run's last minute.
// A benchmark, not a test: it reports, writes results/soak.json, and exits 1 when a bound is missed.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type ProcessGroupChild, spawnProcessGroup } from '@acpkit/remote';
import { childrenOf } from './process-stats.js';
import { describeMachine } from './report.js';
import { type CutProxy, startCutProxy } from './soak/cut-proxy.js';
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
// RSS climbs for the first minutes while rarer combinations of large messages in flight first happen (a 16 MiB echo
// during a cut and its replay), then stays flat: 4 of 10 minutes of warm-up.
const warmupMinutes = Number(flags['warmup-minutes'] ?? (minutes * 2) / 5);
const cutEveryMs = Number(flags['cut-every-s']) * 1000;
const output = flags.output ?? fileURLToPath(new URL('../results/soak.json', import.meta.url));
const ACPREMOTE = fileURLToPath(new URL('../../apps/acpremote/dist/cli.js', import.meta.url));
const AGENT = fileURLToPath(new URL('./fixtures/soak-agent.mjs', import.meta.url));
const README = fileURLToPath(new URL('../README.md', import.meta.url));
/** The bound on each process's RSS growth after the warm-up. */
const GROWTH_BOUND_BYTES = 32 * 1024 * 1024;
/** An answer later than this counts as stalled (a 16 MiB echo through a cut and a resume takes seconds). */
const STALL_MS = 120_000;
const SAMPLE_EVERY_MS = 2_000;
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
  const child = spawnProcessGroup([process.execPath, ACPREMOTE, ...args], {
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

interface Counts {
  smallEchoes: number;
  oneMiBEchoes: number;
  hugeEchoes: number;
  forms: number;
  echoedBytes: number;
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

const MiB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MiB).toFixed(1);

async function main(): Promise<number> {
  const machine = describeMachine();
  log(`${minutes} min (warm-up ${warmupMinutes} min), cuts every ${cutEveryMs / 1000} s`);
  const expose = startService('expose', ['expose', '--port', '0', '--', process.execPath, AGENT]);
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
  const samples: Sample[] = [];
  const sample = () => {
    const rss: Record<string, number> = {};
    for (const service of services) {
      const pid = service.child.process.pid;
      const bytes = pid === undefined ? undefined : rssBytes(pid);
      if (bytes !== undefined) rss[service.name] = bytes;
    }
    const exposePid = expose.child.process.pid;
    for (const [index, pid] of (exposePid === undefined ? [] : childrenOf(exposePid)).entries()) {
      const bytes = rssBytes(pid);
      if (bytes !== undefined) rss[`expose agent ${index + 1}`] = bytes;
    }
    rss['driver (not bounded)'] = process.memoryUsage.rss();
    samples.push({ atMs: Date.now() - started, rss });
  };
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  let cutTurn = 0;
  const cutter = setInterval(() => {
    const path = paths[cutTurn++ % paths.length]!;
    path.proxy.cutAll();
  }, cutEveryMs);
  const progress = setInterval(() => {
    const elapsed = Math.round((Date.now() - started) / 1000);
    const done = paths.map((path) => `${path.name} ${JSON.stringify(path.counts)}`).join('; ');
    log(`${elapsed} s: ${done}`);
  }, 60_000);

  await Promise.all(paths.map((path) => path.run(end)));
  clearInterval(cutter);
  clearInterval(progress);
  sample();
  clearInterval(sampler);

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

  // RSS: what a process holds between large messages is the floor of its samples (a 16 MiB echo in flight lifts RSS
  // by tens of MiB for a moment). A leak lifts the floor: compare the floor of the warm-up's last minute with the
  // floor of the run's last minute. Per-minute floors and peaks go to the JSON file for the whole run.
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.rss)))];
  const minuteOf = (sample: Sample) => Math.floor(sample.atMs / 60_000);
  const memory = names.map((name) => {
    const values = (list: Sample[]) => list.flatMap((s) => (s.rss[name] === undefined ? [] : [s.rss[name]!]));
    const floorOfMinuteBefore = (limitMs: number) =>
      Math.min(...values(samples.filter((s) => s.atMs <= limitMs && s.atMs > limitMs - 60_000)));
    const atWarmup = floorOfMinuteBefore(warmupEnd - started);
    const atEnd = floorOfMinuteBefore(end - started);
    const afterWarmup = values(samples.filter((s) => s.atMs > warmupEnd - started));
    const growth = atEnd - atWarmup;
    const bounded = !name.includes('not bounded');
    const minutes = [...new Set(samples.map(minuteOf))].map((minute) => {
      const inMinute = values(samples.filter((s) => minuteOf(s) === minute));
      return {
        minute,
        floorMiB: Number(mib(Math.min(...inMinute))),
        peakMiB: Number(mib(Math.max(...inMinute))),
      };
    });
    return {
      process: name,
      warmupMiB: Number(mib(atWarmup)),
      endMiB: Number(mib(atEnd)),
      maxAfterWarmupMiB: Number(mib(Math.max(...afterWarmup))),
      growthMiB: Number(mib(growth)),
      withinBound: !bounded || (Number.isFinite(growth) && growth < GROWTH_BOUND_BYTES),
      minutes,
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
  }
  log(passed ? 'passed' : 'FAILED');
  return passed ? 0 : 1;
}

function renderSoak(result: {
  startedAt: string;
  machine: ReturnType<typeof describeMachine>;
  minutes: number;
  warmupMinutes: number;
  cutEverySeconds: number;
  counts: Record<string, Counts>;
  cuts: Array<{ path: string; cuts: number }>;
  faults: Record<string, SoakFaults>;
  exits: Record<string, number | null>;
  memory: Array<{
    process: string;
    warmupMiB: number;
    endMiB: number;
    maxAfterWarmupMiB: number;
    growthMiB: number;
    withinBound: boolean;
    minutes: Array<{ minute: number; floorMiB: number }>;
  }>;
  passed: boolean;
}): string {
  const lines = [
    `Soak of ${result.startedAt}: ${result.minutes} min (warm-up ${result.warmupMinutes} min), every connection cut ` +
      `every ${result.cutEverySeconds} s in turn, default flags; ${result.machine.cpuCount}× ${result.machine.cpuModel}, ` +
      `Node ${result.machine.node}; load average ${result.machine.loadAverage.join(' / ')} at start. **${result.passed ? 'Passed' : 'Failed'}.**`,
    '',
    '| Path | small echoes | 1 MiB echoes | 16 MiB echoes | forms | MB echoed | cuts | lost, duplicated or stalled |',
    '| ---- | -----------: | -----------: | ------------: | ----: | --------: | ---: | --------------------------: |',
    ...Object.entries(result.counts).map(([name, counts]) => {
      const faults = result.faults[name]!;
      const cuts = result.cuts.find((entry) => entry.path === name)?.cuts ?? 0;
      const bad = faults.errors + faults.unexpected + faults.stalled;
      return `| mirror → ${name} | ${counts.smallEchoes} | ${counts.oneMiBEchoes} | ${counts.hugeEchoes} | ${counts.forms} | ${(counts.echoedBytes / 1e6).toFixed(0)} | ${cuts} | ${bad} |`;
    }),
    '',
    '| Process | RSS floor, warm-up end (MiB) | RSS floor, last minute (MiB) | peak after warm-up (MiB) | growth (MiB, bound 32) |',
    '| ------- | -----------------------: | -------------------: | ----------------------: | ---------------------: |',
    ...result.memory.map(
      (entry) =>
        `| ${entry.process} | ${entry.warmupMiB} | ${entry.endMiB} | ${entry.maxAfterWarmupMiB} | ${entry.growthMiB}${entry.withinBound ? '' : ' **over**'} |`,
    ),
    '',
    'RSS floor per minute (MiB), minute 1 first:',
    '',
    ...result.memory.map(
      (entry) =>
        `- ${entry.process}: ${entry.minutes
          .filter((minute) => minute.minute < result.minutes)
          .map((minute) => Math.round(minute.floorMiB))
          .join(', ')}`,
    ),
    '',
    `Exit codes: ${Object.entries(result.exits)
      .map(([name, code]) => `${name} ${code}`)
      .join(', ')}.`,
  ];
  return lines.join('\n');
}

process.exitCode = await main();
