// A TCP proxy on 127.0.0.1:0 in front of a venue, for stream-stall tests: it can silently stop forwarding what the
// venue sends. Invariant: while stalled, the venue's bytes are held back in order (the sockets stay open) and resume() delivers them.

import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy that can silently stop forwarding what the venue sends (held back, the sockets stay open). */
export class StallingProxy {
  private stalled = false;
  private readonly held: { to: Socket; chunk: Buffer }[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(port: number): Promise<StallingProxy> {
    const server = createServer();
    const proxy = new StallingProxy(server);
    server.on('connection', (client) => {
      const upstream = connect({ host: '127.0.0.1', port });
      for (const s of [client, upstream]) {
        proxy.sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk: Buffer) => upstream.write(chunk));
      upstream.on('data', (chunk: Buffer) => (proxy.stalled ? proxy.held.push({ to: client, chunk }) : client.write(chunk)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const { to, chunk } of this.held.splice(0)) to.write(chunk);
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
