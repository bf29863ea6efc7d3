// The chaos suite's system under test: the local venue, the fault proxy in front of it, and the daemon (a child process)
// trading the default market maker through the proxy. Invariant: every venue engine the daemon ever traded on is kept (engines).

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { ROOT, startDaemonProcess, waitForStatus, type DaemonProcess } from '../../../bench/support/daemon-process.js';
import type { Dialect } from '../../../src/core/types.js';
import type { Engine } from '../../../src/venue-sim/engine/index.js';
import { startVenue, type Venue, type VenueOptions } from '../../../src/venue-sim/server/index.js';
import { FaultProxy } from '../../support/fault-proxy.js';

/** The daemon's HTTP request timeout in the suite's config, ms (default.yaml has 10000; shorter so unanswered requests resolve sooner). */
export const HTTP_TIMEOUT_MS = 3000;

/** The protocol dialect the venue serves and the daemon speaks: PERPBOT_CHAOS_DIALECT (v1 or current), default v1. */
export const DIALECT = chaosDialect(process.env.PERPBOT_CHAOS_DIALECT);

function chaosDialect(value: string | undefined): Dialect {
  if (value === undefined || value === 'v1' || value === 'current') return value ?? 'v1';
  throw new Error(`PERPBOT_CHAOS_DIALECT must be v1 or current, got ${value}`);
}

const VENUE: VenueOptions = {
  seed: 1,
  dialect: DIALECT,
  // Every order and fill of a run stays queryable, so the checks see the venue's whole history.
  engine: { historyLimit: 1_000_000 },
  flowIntervalMs: 100,
};

/** Daemon output seen so far and how each daemon process ended. */
export interface DaemonRecord {
  readonly process: DaemonProcess;
  /** The daemon's HTTP server (metrics, /status), known once it printed its banner. */
  base: string;
  /** Set by the suite before it kills the process on purpose. */
  killedOnPurpose: boolean;
}

export class World {
  readonly engines: Engine[] = [];
  readonly daemons: DaemonRecord[] = [];
  /** Exceptions the venue reported as its own bugs. */
  account = '';

  private constructor(
    public venue: Venue,
    readonly venueErrors: string[],
    readonly proxy: FaultProxy,
    readonly dir: string,
    readonly configPath: string,
  ) {
    this.engines.push(venue.engine);
  }

  static async start(): Promise<World> {
    const venueErrors: string[] = [];
    const venue = await startVenue({ ...VENUE, port: 0, onInternalError: (e) => venueErrors.push(String((e as Error)?.stack ?? e)) });
    const proxy = await FaultProxy.start(venue.port);
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-chaos-'));
    const doc = parseDocument(readFileSync(join(ROOT, 'config/default.yaml'), 'utf8'));
    doc.setIn(['venue', 'mode'], 'remote');
    doc.setIn(['venue', 'dialect'], DIALECT);
    doc.setIn(['venue', 'url'], proxy.via(venue.url));
    doc.setIn(['venue', 'wsUrl'], proxy.via(venue.wsUrl));
    doc.setIn(['http', 'timeoutMs'], HTTP_TIMEOUT_MS);
    doc.setIn(['telemetry', 'statusIntervalMs'], 0);
    const configPath = join(dir, 'chaos.yaml');
    writeFileSync(configPath, doc.toString());
    const world = new World(venue, venueErrors, proxy, dir, configPath);
    await world.startDaemon();
    return world;
  }

  get daemon(): DaemonRecord {
    return this.daemons.at(-1)!;
  }

  get journalPath(): string {
    return join(this.dir, 'perpbot.sqlite');
  }

  async startDaemon(): Promise<void> {
    const process = startDaemonProcess(['--config', this.configPath], {
      PERPBOT_DATA_DIR: this.dir,
      PERPBOT_METRICS_PORT: '0',
      PERPBOT_CONTROL_TOKEN: 'chaos',
    });
    const record: DaemonRecord = { process, base: '', killedOnPurpose: false };
    this.daemons.push(record);
    const [, base] = await process.line(/metrics\s+(http:\/\/127\.0\.0\.1:\d+)\/metrics/, 60_000);
    const [, account] = await process.line(/account\s+main\s+([1-9A-HJ-NP-Za-km-z]{32,44})/, 60_000);
    record.base = base!;
    this.account = account!;
    await waitForStatus(`${base}/readyz`, 200, 60_000);
  }

  /** SIGKILL, then a new daemon on the same config and journal. */
  async killDaemon(): Promise<void> {
    this.daemon.killedOnPurpose = true;
    this.daemon.process.kill();
    await this.daemon.process.exited;
  }

  /** SIGTERM (the daemon cancels its orders and exits); resolves with its exit code. */
  async stopDaemon(): Promise<number | string> {
    this.daemon.killedOnPurpose = true;
    this.daemon.process.child.kill('SIGTERM');
    return this.daemon.process.exited;
  }

  /** Stops the venue (connections refused meanwhile) and starts one on the same port: the same engine when `keepState`, else a new one. */
  async restartVenue(keepState: boolean): Promise<void> {
    await this.proxy.outage();
    const old = this.venue;
    await old.close();
    this.venue = await startVenue({
      ...VENUE,
      port: old.port,
      ...(keepState ? { resume: old } : {}),
      onInternalError: (e) => this.venueErrors.push(String((e as Error)?.stack ?? e)),
    });
    if (!keepState) {
      // The account's equity carried over as collateral: the bot's daily loss limit reads an equity drop as a loss.
      const m = old.engine.marginSummary(this.account);
      this.engines.push(this.venue.engine);
      this.venue.engine.faucet(this.account, Math.max(1, Math.floor((m.totalBalance + m.unrealizedPnl) * 100) / 100));
    }
    this.proxy.retarget(this.venue.port);
  }

  async stop(): Promise<void> {
    for (const d of this.daemons) d.process.kill();
    await this.proxy.close();
    await this.venue.close();
  }
}
