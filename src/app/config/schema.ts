// The daemon's configuration (`perpbot run`, config/default.yaml): its types, and its schema with every default.
// Invariants: unknown keys are rejected everywhere; a parsed config is complete (defaults applied); secret values never appear in messages.

import {
  array,
  boolean,
  custom,
  literal,
  nullable,
  number,
  object,
  optional,
  parse,
  record,
  refine,
  string,
  transform,
  withDefault,
  type Infer,
  type Schema,
} from '../../core/schema.js';
import { backtestConfigSchema, type BacktestConfig } from '../../backtest/config.js';
import { DEFAULT_JOURNAL_PATH } from '../../store/index.js';
import { DEFAULT_CONTROL_PORT } from '../../telemetry/index.js';
import { ValidationError } from '../../core/errors.js';
import { DIALECTS, NETWORKS, symbolSchema, type Dialect, type Network } from '../../core/types.js';
import { Keypair } from '../../protocol/keys.js';
import { riskConfigInputSchema, type RiskConfigInput } from '../../risk/config.js';
import { SIGNING_MODES, type SigningMode } from '../trading.js';
import { venueConfigSchema, type VenueConfig } from '../venue-config.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One signing key: an account's own key, or an agent key signing for another account. */
export interface AccountConfig {
  /** 1 to 32 of a-z, 0-9, `_`, `-`. */
  name: string;
  /** Key file (Solana JSON array or base58 text); absolute once loaded (relative to the config file's directory). */
  keyFile: string | undefined;
  /** Base58 secret (32-byte seed or 64-byte keypair), typically "${PERPBOT_SECRET_KEY}"; never echoed. */
  secretKey: string | undefined;
  /** Create keyFile with a new key (mode 0600) when it is missing. Default false. */
  createKey: boolean;
  /** Another account's name: this key is that account's agent (authorized at start with that account's key). */
  agentOf: string | undefined;
  /** Test collateral requested from the faucet at start, USD (test venues). */
  faucetUsd: number | undefined;
  /** Leverage set at start, by symbol. Default {}. */
  leverage: Record<string, number>;
  /** With venue.mode paper: the simulated account's starting collateral, USD (default backtest.collateralUsd). */
  paper: { collateralUsd: number | undefined } | undefined;
}

/** One strategy instance. */
export interface StrategyConfig {
  /** Instance name; default the definition's name. */
  name: string | undefined;
  /** A built-in name (`market-maker`) or a path (absolute once loaded). */
  module: string;
  /** The account it trades; default the first account. */
  account: string;
  /** Validated by the strategy's own schema (checkDaemonConfig). Default {}. */
  params: unknown;
}

export interface DaemonConfig {
  venue: {
    /**
     * `local` starts the embedded local venue in this process; `paper` trades the market data of the venue at url and
     * wsUrl on the backtest's simulated exchange (no order is sent). Default local.
     */
    mode: 'local' | 'remote' | 'paper';
    /** REST base URL ending in /api/v1 (http or https); required when remote or paper. */
    url: string | undefined;
    /** ws:// or wss:// URL; required when remote or paper. */
    wsUrl: string | undefined;
    /** Default v1. */
    dialect: Dialect;
    /** Default testnet. */
    network: Network;
    /** Stream data older than this (no data and no pong) is stale: quotes pulled, readiness off, ms. Default 3000. */
    staleAfterMs: number;
    /** How long a remote venue that cannot be reached at start is retried (backoff, a line per attempt), ms; 0 tries once. Default 60000. */
    startTimeoutMs: number;
    /** The embedded venue's settings (used when mode is local). Default {}. */
    local: VenueConfig;
  };
  /** At least one. */
  accounts: AccountConfig[];
  /** At least one. */
  strategies: StrategyConfig[];
  /** Risk limits, applied per account. Default {} (RISK_DEFAULTS). */
  risk: RiskConfigInput;
  execution: {
    /** Items per signed batch, 1..1000. Default 20. */
    maxBatchItems: number;
    /** Wait before sending a batch, ms; 0 sends as soon as the event loop is free. Default 0. */
    flushDelayMs: number;
    /** What to do with open orders found at start that this daemon did not place. Default cancel. */
    unknownOrders: 'cancel' | 'adopt';
    /** How batches are signed (TradingOptions.signing). Default precomputed. */
    signing: SigningMode;
  };
  http: {
    /** Order requests: token bucket rate per second and size. Defaults 50 and 100. */
    ordersPerSecond: number;
    ordersBurst: number;
    /** Cancel requests: rate per second and bucket size. Defaults 100 and 200. */
    cancelsPerSecond: number;
    cancelsBurst: number;
    /** Request timeout, ms. Default 10000. */
    timeoutMs: number;
    /** Keep-alive sockets to the venue. Default 16. */
    maxSockets: number;
    /** Connected idle sockets kept ready for signed actions (HttpClientOptions.spareSockets). Default 2. */
    spareSockets: number;
    /** Longest total wait on HTTP 429 answers before a request gives up (HttpClientOptions.rateLimitMaxWaitMs), ms. Default 30000. */
    rateLimitMaxWaitMs: number;
  };
  /** SQLite journal file; absolute once loaded. Default data/perpbot.sqlite next to the config file. */
  journal: {
    path: string;
    /** Pruning (startRetention): rows older than maxAgeDays (0: any age kept) and, while the journal uses more than maxMegabytes (0: no bound), the oldest; one small step every pruneIntervalMs. Defaults 7, 1024, 1000. */
    retention: { maxAgeDays: number; maxMegabytes: number; pruneIntervalMs: number };
  };
  telemetry: {
    /** Bind address of /metrics, /livez, /readyz, /status. Default 127.0.0.1. */
    host: string;
    /** 0..65535; 0 picks a free port. Default 9464. */
    port: number;
    /** Bearer token of the control endpoints; empty or absent is none. */
    token: string | undefined;
    /** Interval of the status line, ms; 0 prints none. Default 10000. */
    statusIntervalMs: number;
    /** Readiness turns false while every order of a strategy has been denied by risk this long, ms; 0: never. Default 30000. */
    deniedNotReadyMs: number;
    /** Least time between two warnings about risk denials of one strategy and reason, ms. Default 30000. */
    denialLogIntervalMs: number;
  };
  log: { level: LogLevel };
  shutdown: {
    /** Cancel open orders on shutdown. Default true. */
    cancelOrders: boolean;
    /** Time allowed for an orderly shutdown, ms. Default 10000. */
    deadlineMs: number;
  };
  latency: {
    /** A CPU of the event loop's own (dedicateCpu: pinned, spun when idle, other threads moved off). Default none. */
    dedicatedCpu: number | undefined;
    /** Nice value of the event-loop thread (setEventLoopNice; below the process's needs CAP_SYS_NICE). Default: unchanged. */
    eventLoopNice: number | undefined;
    /** Keep-warm interval, ms (the session's keepWarmMs: a dry run of the hot path between bursts); 0: off. Default 5. */
    keepWarmMs: number;
  };
  /** `perpbot backtest` only: the simulated exchange's models (src/backtest/config.ts, docs/backtest.md). Default {}. */
  backtest: BacktestConfig;
  /** Market data recorded while trading (docs/recording.md); absent: none. */
  record: { /** Recording file; absolute once loaded. */ out: string /** Default: the strategies' markets. */; symbols: string[] | undefined } | undefined;
}

const STRICT = { strict: true } as const;
type Shape = Record<string, Schema<unknown>>;

/**
 * A strict object typed with every key present: sound because each field is required, optional
 * (its type includes undefined) or defaulted (always filled in).
 */
function complete<S extends Shape>(shape: S): Schema<{ [K in keyof S]: Infer<S[K]> }> {
  return object(shape, STRICT) as unknown as Schema<{ [K in keyof S]: Infer<S[K]> }>;
}

/** `s`, or what `s` makes of `{}` when the key is absent or empty (a section whose every key has a default). */
function defaulted<T>(s: Schema<T>): Schema<T> {
  return transform(optional(nullable(s)), (v) => v ?? parse(s, {}));
}

const integer = (min: number, max: number) => number({ integer: true, min, max });
const accountName = string({ maxLength: 32, pattern: /^[a-z0-9_-]{1,32}$/, patternName: '1 to 32 of a-z, 0-9, _ and -' });
const anything = custom<unknown>('any value', (v) => v);

/** True when `text` is the base58 text of a secret key (a 32-byte seed or a 64-byte keypair). */
export function isSecretKey(text: string): boolean {
  try {
    Keypair.fromBase58(text);
    return true;
  } catch (e) {
    if (e instanceof ValidationError) return false;
    throw e;
  }
}

const secretKey = refine(string({ minLength: 1, maxLength: 256 }), (v) =>
  isSecretKey(v) ? undefined : 'expected the base58 text of a 32-byte seed or a 64-byte keypair (value not shown)',
);

const accountSchema: Schema<AccountConfig> = refine(
  complete({
    name: accountName,
    keyFile: optional(string({ minLength: 1, maxLength: 4096 })),
    secretKey: optional(secretKey),
    createKey: withDefault(boolean(), false),
    agentOf: optional(accountName),
    faucetUsd: optional(number({ gt: 0 })),
    leverage: defaulted(record(number({ min: 1, max: 100 }), { key: symbolSchema, maxKeys: 200 })),
    paper: optional(complete({ collateralUsd: optional(number({ gt: 0, max: 1e12 })) })),
  }),
  (a) =>
    (a.keyFile === undefined) === (a.secretKey === undefined)
      ? 'give exactly one of keyFile and secretKey'
      : a.createKey && a.keyFile === undefined
        ? 'createKey needs keyFile'
        : undefined,
);

const strategySchema = complete({
  name: optional(string({ minLength: 1, maxLength: 64 })),
  module: string({ minLength: 1, maxLength: 4096 }),
  account: optional(accountName),
  params: defaulted(anything),
});

const venueSchema: Schema<DaemonConfig['venue']> = defaulted(
  complete({
    mode: withDefault(literal('local', 'remote', 'paper'), 'local'),
    url: optional(string({ maxLength: 2048, pattern: /^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*)?\/api\/v1$/, patternName: 'an http(s) URL ending in /api/v1' })),
    wsUrl: optional(string({ maxLength: 2048, pattern: /^wss?:\/\/[^\s/?#]+\S*$/, patternName: 'a ws:// or wss:// URL' })),
    dialect: withDefault(literal(...DIALECTS), 'v1'),
    network: withDefault(literal(...NETWORKS), 'testnet'),
    staleAfterMs: withDefault(integer(100, 60_000), 3_000),
    startTimeoutMs: withDefault(integer(0, 3_600_000), 60_000),
    local: defaulted(venueConfigSchema),
  }),
);

const fileSchema = complete({
  venue: venueSchema,
  accounts: array(accountSchema, { minLength: 1, maxLength: 64 }),
  strategies: array(strategySchema, { minLength: 1, maxLength: 256 }),
  risk: defaulted(riskConfigInputSchema),
  execution: defaulted(
    complete({
      maxBatchItems: withDefault(integer(1, 1000), 20),
      flushDelayMs: withDefault(integer(0, 60_000), 0),
      unknownOrders: withDefault(literal('cancel', 'adopt'), 'cancel'),
      signing: withDefault(literal(...SIGNING_MODES), 'precomputed'),
    }),
  ),
  http: defaulted(
    complete({
      ordersPerSecond: withDefault(number({ gt: 0, max: 100_000 }), 50),
      ordersBurst: withDefault(integer(1, 100_000), 100),
      cancelsPerSecond: withDefault(number({ gt: 0, max: 100_000 }), 100),
      cancelsBurst: withDefault(integer(1, 100_000), 200),
      timeoutMs: withDefault(integer(1, 600_000), 10_000),
      maxSockets: withDefault(integer(1, 1024), 16),
      spareSockets: withDefault(integer(0, 64), 2),
      rateLimitMaxWaitMs: withDefault(integer(0, 3_600_000), 30_000),
    }),
  ),
  journal: defaulted(
    complete({
      path: withDefault(string({ minLength: 1, maxLength: 4096 }), DEFAULT_JOURNAL_PATH),
      retention: defaulted(
        complete({
          maxAgeDays: withDefault(integer(0, 36_500), 7),
          maxMegabytes: withDefault(integer(0, 16_777_216), 1024),
          pruneIntervalMs: withDefault(integer(10, 3_600_000), 1000),
        }),
      ),
    }),
  ),
  telemetry: defaulted(
    complete({
      host: withDefault(string({ minLength: 1, maxLength: 255 }), '127.0.0.1'),
      port: withDefault(integer(0, 65_535), DEFAULT_CONTROL_PORT),
      token: transform(optional(string({ maxLength: 1024 })), (v) => v || undefined),
      statusIntervalMs: withDefault(integer(0, 86_400_000), 10_000),
      deniedNotReadyMs: withDefault(integer(0, 86_400_000), 30_000),
      denialLogIntervalMs: withDefault(integer(1_000, 86_400_000), 30_000),
    }),
  ),
  log: defaulted(complete({ level: withDefault(literal(...LOG_LEVELS), 'info') })),
  shutdown: defaulted(
    complete({
      cancelOrders: withDefault(boolean(), true),
      deadlineMs: withDefault(integer(0, 600_000), 10_000),
    }),
  ),
  latency: defaulted(
    complete({ dedicatedCpu: optional(integer(0, 4095)), eventLoopNice: optional(integer(-20, 19)), keepWarmMs: withDefault(integer(0, 60_000), 5) }),
  ),
  backtest: backtestConfigSchema,
  record: optional(complete({ out: string({ minLength: 1, maxLength: 4096 }), symbols: optional(array(symbolSchema, { minLength: 1, maxLength: 200 })) })),
});

/**
 * The whole file, defaults applied; a strategy without `account` trades for the first account. Paths are
 * still as written (parseDaemonConfig resolves them) and checks between fields are not part of it.
 */
export const daemonConfigSchema: Schema<DaemonConfig> = transform(fileSchema, (c) => ({
  ...c,
  strategies: c.strategies.map((s) => ({ ...s, account: s.account ?? c.accounts[0]!.name })),
}));
