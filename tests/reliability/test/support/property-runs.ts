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

/** Whether the nightly-size mode is on; tests scale their time limits with it. */
export const NIGHTLY = process.env.ACPKIT_NIGHTLY === '1';
