/**
 * Generated cases per property: 5k in the CI test command, 100k in the nightly-size mode (`ACPKIT_NIGHTLY=1`).
 * `ACPKIT_PROPERTY_RUNS=<n>` overrides both (for a quick local loop).
 *
 * @example
 * ```ts
 * fc.assert(property, { numRuns: PROPERTY_RUNS });
 * ```
 */
export const PROPERTY_RUNS = process.env.ACPKIT_PROPERTY_RUNS
  ? Number(process.env.ACPKIT_PROPERTY_RUNS)
  : process.env.ACPKIT_NIGHTLY === '1'
    ? 100_000
    : 5_000;

/**
 * Generated cases per property whose every case is a round trip through a real CLI process and its sockets
 * (random-frames, ndjson-chunking): 1k in the CI test command, where a case costs ~4 ms of CPU against microseconds
 * for an in-process property, and the same 100k as the others in the nightly-size mode. 1k cases still reach each
 * kind of generated frame or cut many times (the tests assert that the closing paths are met), and a failure prints
 * fast-check's seed and path, which `ACPKIT_PROPERTY_RUNS` and fast-check's `seed` replay at any size.
 */
export const PROCESS_PROPERTY_RUNS = process.env.ACPKIT_PROPERTY_RUNS
  ? Number(process.env.ACPKIT_PROPERTY_RUNS)
  : process.env.ACPKIT_NIGHTLY === '1'
    ? 100_000
    : 1_000;

/** Whether the nightly-size mode is on; tests scale their time limits with it. */
export const NIGHTLY = process.env.ACPKIT_NIGHTLY === '1';
