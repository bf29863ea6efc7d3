// Teardown for tests that start things (venues, daemons, proxies, journals): each test pushes how to undo what it started.
// Invariant: after each test every pushed step runs, last pushed first, each awaited before the next; the list is then empty.

import { afterEach } from 'vitest';

/** A list to push teardown steps to; registers the afterEach (of the enclosing suite) that runs and empties it. */
export function cleanups(): (() => unknown)[] {
  const steps: (() => unknown)[] = [];
  afterEach(async () => {
    for (const step of steps.splice(0).reverse()) await step();
  });
  return steps;
}
