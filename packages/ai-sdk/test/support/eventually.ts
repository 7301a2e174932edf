// Waits (bounded) until a condition about another process or server holds, for what no event announces: a process
// ending after its session closed, a server seeing its client go away.

/** Resolves once `check` holds; throws naming `what` after `timeoutMs`. */
export async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
