// Types for step-markers.mjs, so the TypeScript tests can import it.

/** The environment variable that names the markers' folder. */
export declare const STEP_MARKERS_VARIABLE: string;
/** How a step ended: passed or not, and what it says (a failure's reason, or a value it found). */
export interface StepOutcome {
  ok: boolean;
  detail: string;
}
/** Records that the step `key` has ended. */
export declare function markStepEnded(directory: string, key: string, outcome: StepOutcome): void;
/** Resolves once `name` exists in `directory` (its path), or undefined once `stopWhen` does. */
export declare function waitForFile(
  directory: string,
  name: string,
  stopWhen?: string,
): Promise<string | undefined>;
/** Inside the test command, waits (at most 15 minutes) for its step `key` to end; outside it, resolves at once. */
export declare function waitForStep(key: string): Promise<StepOutcome | undefined>;
/** Waits for the services' install step; throws its reason when it failed. */
export declare function servicesInstalled(): Promise<void>;
