// A TCP port on 127.0.0.1 that was free a moment ago, for tests that must name a port before anything listens on it.
// Invariant: nothing listens on it when returned (another process may still take it: use it at once).

import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
