// The release check's step runner: every step prints `==> name` and `<== name: ok|FAILED|SKIPPED`, with the reason
// on failure; a step whose prerequisite failed is skipped (and counts as a failure). The summary decides the exit code.

/** @type {Array<{ name: string; status: 'ok' | 'failed' | 'skipped'; reason?: string }>} */
const results = [];
const passedSteps = new Set();

function indent(text) {
  return String(text)
    .trimEnd()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/** The message of an error, or the value as text. */
export function describe(error) {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Seconds since `started`, with one decimal. */
export function seconds(started) {
  return ((Date.now() - started) / 1000).toFixed(1);
}

export function assert(condition, message) {
  if (!condition) throw new Error(message);
}

export function assertEqual(actual, expected, what) {
  const left = JSON.stringify(actual);
  const right = JSON.stringify(expected);
  if (left !== right) throw new Error(`${what}: expected ${right}, got ${left}`);
}

/** Whether the step called `name` ran and passed. */
export function hasPassed(name) {
  return passedSteps.has(name);
}

/**
 * Runs one named step. `requires` names earlier steps (or step-name prefixes ending in `*`) that must have passed.
 * @param {string} name
 * @param {() => Promise<string | void>} action resolves with an optional one-line detail
 * @param {{ requires?: string[]; startedAt?: number }} [options] `startedAt` when the work already ran elsewhere
 */
export async function step(name, action, options = {}) {
  const missing = (options.requires ?? []).filter((required) => {
    if (!required.endsWith('*')) return !passedSteps.has(required);
    const matching = results.filter((result) => result.name.startsWith(required.slice(0, -1)));
    return matching.length === 0 || matching.some((result) => result.status !== 'ok');
  });
  if (missing.length > 0) {
    const reason = `skipped: needs ${missing.join(', ')}`;
    results.push({ name, status: 'skipped', reason });
    console.log(`\n<== ${name}: SKIPPED (${reason})`);
    return;
  }
  const started = options.startedAt ?? Date.now();
  console.log(`\n==> ${name}`);
  try {
    const detail = await action();
    passedSteps.add(name);
    results.push({ name, status: 'ok' });
    console.log(`<== ${name}: ok${detail ? ` - ${detail}` : ''} (${seconds(started)} s)`);
  } catch (error) {
    results.push({ name, status: 'failed', reason: describe(error) });
    console.log(`<== ${name}: FAILED (${seconds(started)} s)\n${indent(describe(error))}`);
  }
}

/**
 * Runs independent steps with bounded concurrency (the machine has 2 cores) and reports them in order.
 * @param {Array<{ name: string; action: () => Promise<string | void>; requires?: string[] }>} list
 */
export async function parallelSteps(list, concurrency = 2) {
  const outcomes = new Array(list.length);
  let next = 0;
  async function worker() {
    while (next < list.length) {
      const index = next++;
      const started = Date.now();
      try {
        outcomes[index] = { ok: true, detail: await list[index].action(), started, ended: Date.now() };
      } catch (error) {
        outcomes[index] = { ok: false, error, started, ended: Date.now() };
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const [index, item] of list.entries()) {
    const outcome = outcomes[index];
    await step(
      item.name,
      async () => {
        if (!outcome.ok) throw outcome.error;
        return outcome.detail ? `${outcome.detail} (in parallel)` : 'in parallel';
      },
      { startedAt: Date.now() - (outcome.ended - outcome.started) },
    );
  }
}

/** Records a failure that happened outside any step (a crash of the check itself). */
export function recordCrash(error) {
  results.push({ name: 'release:check', status: 'failed', reason: describe(error) });
  console.log(`\nrelease:check crashed: ${error instanceof Error ? error.stack : String(error)}`);
}

/**
 * Prints how many steps passed and which did not.
 * @returns {number} the exit code: 0 only when every step passed
 */
export function printSummary(started) {
  const failures = results.filter((result) => result.status !== 'ok');
  console.log(
    `\nrelease:check: ${results.length - failures.length} of ${results.length} steps passed in ${seconds(started)} s`,
  );
  for (const failure of failures)
    console.log(`  - ${failure.status.toUpperCase()}: ${failure.name}: ${failure.reason?.split('\n')[0]}`);
  return failures.length === 0 ? 0 : 1;
}
