/** How long the agent may take to answer `initialize` unless `--initialize-timeout` says otherwise. */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;
