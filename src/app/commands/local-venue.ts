// `perpbot venue`: runs the local venue (HTTP + WebSocket + market flow) until SIGINT/SIGTERM.
// Invariant: command-line flags override the config file; the venue binds to loopback by default.

import { loadYamlFile } from '../yaml-config.js';
import { DIALECTS, NETWORKS } from '../../core/types.js';
import { blockLine, venueConfigSchema, venueOptions } from '../venue-config.js';
import { startVenue, type BlockRecord, type VenueOptions } from '../../venue-sim/server/index.js';
import { oneOf, parseCommand, UsageError } from '../args.js';
import { bound } from '../ports.js';

export const venueHelp = `perpbot venue [--port N] [--host 127.0.0.1] [--config FILE] [--seed N] [--no-flow]
              [--dialect v1|current] [--network mainnet|testnet|devnet] [--log-blocks]

Runs the local venue: the specification's HTTP interface at http://HOST:PORT/api/v1 and its
streams at ws://HOST:PORT/ws, with synthetic market makers and takers (unless --no-flow).
POST /order takes either dialect's envelope; --dialect picks the shapes of account queries and
the account stream.
  --port        TCP port (default 8080; 0 picks a free port)
  --host        bind address (default 127.0.0.1)
  --config      YAML file with venue settings (markets, flow, oracle keys, rate limit, ...)
  --seed        seed of every random choice (default 1)
  --no-flow     no synthetic participants: an empty, quiet market
  --dialect     v1 (default) or current
  --network     network byte current signatures must carry (default testnet)
  --log-blocks  print each current-dialect block: timestamp, shuffle seed, execution order`;

function integerFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}; got ${JSON.stringify(value)}`);
  return n;
}

export async function venue(argv: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseCommand(argv, {
    port: { type: 'string' },
    host: { type: 'string' },
    config: { type: 'string' },
    seed: { type: 'string' },
    'no-flow': { type: 'boolean' },
    dialect: { type: 'string' },
    network: { type: 'string' },
    'log-blocks': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out(venueHelp);
    return 0;
  }
  const fromFile: VenueOptions = values.config ? venueOptions(loadYamlFile(values.config, venueConfigSchema)) : {};
  const port = integerFlag('port', values.port, 0, 65535) ?? fromFile.port ?? 8080;
  const seed = integerFlag('seed', values.seed, 0, 2 ** 32 - 1) ?? fromFile.seed;
  const host = values.host ?? fromFile.host ?? '127.0.0.1';
  const dialect = oneOf('dialect', values.dialect, DIALECTS, 'v1');
  const network = oneOf('network', values.network, NETWORKS, 'testnet');
  const v = await bound(
    '--port',
    host,
    port,
    startVenue({
      ...fromFile,
      port,
      host,
      ...(seed !== undefined && { seed }),
      ...(values['no-flow'] && { flow: false }),
      dialect,
      network,
      ...(values['log-blocks'] && { onBlock: (b: BlockRecord) => out(blockLine(b)) }),
    }),
    'or port in the --config file',
  );
  out(
    `local venue listening: ${v.url} (WebSocket ${v.wsUrl}), ${v.engine.markets().length} markets, flow ${v.flow ? 'on' : 'off'}, ${v.dialect} dialect, ${v.network} network`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await v.close();
  out('local venue stopped');
  return 0;
}
