import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sample } from '../../../bench/support/daemon-process.js';
import { checkDaemonConfig } from '../../../src/app/config/index.js';
import { startDaemon, type Daemon } from '../../../src/app/daemon/daemon.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { Journal } from '../../../src/store/index.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { writeDaemonYaml } from '../../support/daemon-yaml.js';

const cleanup = cleanups();

describe('daemon restarts and nonces', () => {
  it('five starts in a row leave the nonce mark within the reserve window of the clock, log the lead and export it', async () => {
    const venue = await startVenue({ port: 0, seed: 5 });
    cleanup.push(() => venue.close());
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-nonce-restarts-'));
    const { config: cfg, strategies } = await checkDaemonConfig(writeDaemonYaml(dir, venue, { account: 'leverage: {BTC-USD: 3}' }), {});
    const leads: number[] = [];
    for (let start = 0; start < 5; start++) {
      const logs: string[] = [];
      const daemon: Daemon = await startDaemon({
        config: cfg,
        strategies,
        logger: createLogger({ level: 'info', destination: { write: (l: string) => void logs.push(l) } }),
        out: () => {},
      });
      cleanup.push(() => daemon.stop('test cleanup'));
      const lead = logs
        .map((l) => JSON.parse(l) as { msg: string; account?: string; nonceLeadSeconds?: number })
        .find((l) => l.msg === 'nonce lead over the clock');
      expect(lead).toMatchObject({ account: 'main', nonceLeadSeconds: expect.any(Number) });
      const metrics = await (await fetch(daemon.metricsUrl)).text();
      expect(sample(metrics, 'perpbot_nonce_lead_seconds', { account: 'main' })).toBeLessThanOrEqual(10);
      await daemon.stop('restart');
      const signer = Keypair.fromFile(join(dir, 'keys/main.json')).publicKey;
      const journal = Journal.open(join(dir, 'journal.sqlite'));
      leads.push(Number(journal.nonces.load(signer)! - BigInt(Date.now()) * 1_000_000n) / 1e9);
      journal.close();
    }
    // The mark reaches about 10 s (the reserve window) past the clock, however often the daemon starts.
    for (const lead of leads) expect(lead).toBeLessThanOrEqual(10.5);
  }, 90_000);
});
