// Waits in tests for a condition that something else makes true (a venue, a daemon, a socket), by polling it.
// Invariant: resolves only once `check` returned true; rejects after timeoutMs naming what was awaited.

/** Resolves when `check` holds (polled every `intervalMs`); rejects after `timeoutMs` naming `what`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000, intervalMs = 5): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
