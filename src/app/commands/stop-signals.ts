// Ctrl-C for commands that stop gracefully (backtest, sweep): the first signal asks the work to stop and says what is
// kept; a second one exits at once with status 130. Invariant: the handlers are removed by dispose.

/** An AbortSignal aborted by the first of `signals` (printing `message` on stderr); `dispose` removes the handlers. */
export function stopOnSignals(signals: readonly NodeJS.Signals[], message: string): { signal: AbortSignal; dispose(): void } {
  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    process.stderr.write(`\n${message}\n`);
    abort.abort();
  };
  for (const s of signals) process.on(s, onSignal);
  return { signal: abort.signal, dispose: () => signals.forEach((s) => process.off(s, onSignal)) };
}
