/**
 * How long the agent may take to answer `initialize` unless `--initialize-timeout` says otherwise. The CLI's own
 * constant, not the test client's: `index.ts` shows it in the help, and importing `@acpkit/testing/internal` there
 * would load the ACP SDK into `acpkit run --addr` (see client-action.ts).
 */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;
