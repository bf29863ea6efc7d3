// A loopback TCP proxy for outage tests: forwards to a local port until cut; while cut every connection stalls silently
// (bytes are read and dropped, nothing answers, nothing reaches the target), and restore() closes the stalled ones.
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

const REQUEST_LINE = /^(GET|POST|PUT|DELETE) /;

export class CuttableProxy {
  /** HTTP requests that arrived while cut (and were dropped). */
  droppedRequests = 0;
  private cutNow = false;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket | undefined }>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:`targetPort`. */
  static async start(targetPort: number): Promise<CuttableProxy> {
    let proxy: CuttableProxy | undefined;
    const server = createServer((client) => proxy!.accept(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new CuttableProxy(server, (server.address() as AddressInfo).port);
    return proxy;
  }

  /** `url` (of the target) with its port replaced by the proxy's. */
  via(url: string): string {
    const u = new URL(url);
    u.port = String(this.port);
    return u.toString().replace(/\/$/, '');
  }

  /** Every connection, open or new, stalls from now on. */
  cut(): void {
    this.cutNow = true;
  }

  /** Closes every connection (the stalled ones see a reset) and forwards new ones again. */
  restore(): void {
    this.cutNow = false;
    for (const p of this.pairs) this.drop(p);
  }

  async close(): Promise<void> {
    for (const p of this.pairs) this.drop(p);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, targetPort: number): void {
    const pair: { client: Socket; upstream: Socket | undefined } = { client, upstream: undefined };
    this.pairs.add(pair);
    client.on('error', () => this.drop(pair));
    client.on('close', () => this.drop(pair));
    if (!this.cutNow) {
      const upstream = connect(targetPort, '127.0.0.1');
      pair.upstream = upstream;
      upstream.on('error', () => this.drop(pair));
      upstream.on('close', () => this.drop(pair));
      upstream.on('data', (d: Buffer) => {
        if (!this.cutNow) client.write(d);
      });
    }
    client.on('data', (d: Buffer) => {
      if (this.cutNow || !pair.upstream) {
        if (REQUEST_LINE.test(d.toString('latin1', 0, 8))) this.droppedRequests++;
      } else pair.upstream.write(d);
    });
  }

  private drop(pair: { client: Socket; upstream: Socket | undefined }): void {
    if (!this.pairs.delete(pair)) return;
    pair.client.destroy();
    pair.upstream?.destroy();
  }
}
