// HTTP interface of the local venue under /api/v1: account queries, signed actions, exchangeInfo,
// l2book, ticker, klines and stats. Invariant: a malformed or refused request gets a 4xx JSON error (gaps §4) and changes
// no state; the venue answers 500 only for its own bugs, never for anything a client sends.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError } from '../../core/errors.js';
import { parseJson, stringifyJson } from '../../core/json.js';
import { parse } from '../../core/schema.js';
import type { CurrentAccountQuery } from '../../protocol/current/account-query.js';
import type { Schema } from '../../core/schema.js';
import { actionTypeForPath, createRequestBodySchema, type ActionType, type RequestBody } from '../../protocol/v1/actions.js';
import { orderIdsOf } from '../../protocol/v1/order-id.js';
import type { Clock } from '../../core/clock.js';
import type { BookLevelRow, Engine, LeverageEntry, MarketInfo } from '../engine/index.js';
import { authorize, verifySignature, type AuthDeps } from './auth.js';
import { isCurrentEnvelope, type CurrentOrderApi } from './current-api.js';
import { toMs } from './streams.js';
import { decimalsOf, roundToStep } from '../decimals.js';
import { HttpError, readBody, requestUrl, sendError, sendJson, TurnQueue, type RateLimiter } from './http-util.js';

export const API_PREFIX = '/api/v1';

export interface ApiOptions extends AuthDeps {
  /** Largest accepted body, bytes (413 above). */
  readonly maxBodyBytes: number;
  /** Items accepted in one order action (400 above). */
  readonly maxBatchItems: number;
  /** Account queries waiting for their turn (they run one per event-loop turn); 429 above. */
  readonly maxWaitingQueries: number;
  readonly rateLimiter: RateLimiter | undefined;
  /** The venue clock: the nonce window and the rate limiter use it. */
  readonly clock: Clock;
  /** Called after every state change so events reach the streams in order. */
  readonly afterChange: () => void;
  /** Reports a bug (an exception that is not the client's fault). */
  readonly onInternalError: (e: unknown) => void;
  /** POST /order bodies in the current generation's envelope (`actions`). */
  readonly current: CurrentOrderApi;
  /** The body of POST /account in the venue's dialect (v1's six types, or the current generation's nine and a symbol). */
  readonly accountQuery: Schema<CurrentAccountQuery>;
  /** Rows of POST /account in the venue's dialect. */
  readonly accountRows: (query: CurrentAccountQuery) => unknown;
  /** GET /ticker/{symbol}, /klines and /stats. */
  readonly marketData: MarketDataSource;
}

/** The market-data answers the streams also publish (venue-protocol §8.2, §9.3). */
export interface MarketDataSource {
  ticker(symbol: string): unknown;
  candles(symbol: string, intervalMs: number, startMs: number, endMs: number): unknown[];
  exchangeStats(period: string, symbol: string | undefined): unknown;
}

const MINUTE_MS = 60_000;
/** /klines intervals the local venue serves: whole minutes within its 24 hours of history. */
const INTERVAL_MS: Readonly<Record<string, number>> = {
  '1m': MINUTE_MS,
  '3m': 3 * MINUTE_MS,
  '5m': 5 * MINUTE_MS,
  '15m': 15 * MINUTE_MS,
  '30m': 30 * MINUTE_MS,
  '1h': 60 * MINUTE_MS,
  '2h': 120 * MINUTE_MS,
  '4h': 240 * MINUTE_MS,
  '6h': 360 * MINUTE_MS,
  '8h': 480 * MINUTE_MS,
  '12h': 720 * MINUTE_MS,
  '1d': 1440 * MINUTE_MS,
};
/** /stats periods and their aliases (§8.2); anything else is 1d. */
const PERIODS: Readonly<Record<string, string>> = { '1d': '1d', '7d': '7d', '30d': '30d', '90d': '90d', '3m': '90d', '1y': '1y', '365d': '1y', all: 'all' };

type Handler = (req: IncomingMessage, url: URL) => Promise<string> | string;

export function createApi(opts: ApiOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const bodySchemas = new Map<ActionType, ReturnType<typeof createRequestBodySchema>>();
  const bodySchema = (type: ActionType) => {
    let s = bodySchemas.get(type);
    if (!s) bodySchemas.set(type, (s = createRequestBodySchema(type, opts.maxBatchItems)));
    return s;
  };

  const readJson = async (req: IncomingMessage): Promise<unknown> => {
    const text = await readBody(req, opts.maxBodyBytes);
    try {
      return parseJson(text);
    } catch {
      throw new HttpError(400, 'MALFORMED_JSON', 'request body is not valid JSON');
    }
  };

  const queries = new TurnQueue(opts.maxWaitingQueries);
  const account: Handler = async (req) => {
    const q = parse(opts.accountQuery, await readJson(req));
    return queries.run(() => stringifyJson(opts.accountRows(q)));
  };

  const signed =
    (type: ActionType): Handler =>
    async (req) => {
      const json = await readJson(req);
      if (type === 'order' && isCurrentEnvelope(json)) return opts.current.handle(json, headerText(req.headers['x-bulk-sig-mode']));
      const body = parse(bodySchema(type), json) as RequestBody;
      const authentic = await verifySignature(body, opts.verifier);
      const refused = authentic ? authorize(type, body, opts, opts.clock.nowNs()) : 'bad signature';
      if (refused !== undefined) return JSON.stringify({ status: 'error', response: { type, data: { statuses: [{ error: { message: refused } }] } } });
      const statuses = apply(type, body, opts.engine);
      opts.nonces.accept(body.signer, body.action.nonce);
      opts.afterChange();
      return JSON.stringify({ status: 'ok', response: { type, data: { statuses } } });
    };

  const exchangeInfo: Handler = () => JSON.stringify(opts.engine.markets().map(marketInfoRow));

  const l2book: Handler = (_req, url) => {
    const symbol = url.searchParams.get('symbol') ?? url.searchParams.get('coin');
    if (!symbol) throw new HttpError(400, 'BAD_REQUEST', 'symbol is required');
    const nlevelsText = url.searchParams.get('nlevels');
    const nlevels = nlevelsText === null ? Infinity : Number(nlevelsText);
    if (!(nlevels === Infinity || (Number.isInteger(nlevels) && nlevels >= 1 && nlevels <= 1000))) {
      throw new HttpError(400, 'BAD_REQUEST', 'nlevels must be an integer from 1 to 1000');
    }
    const aggregationText = url.searchParams.get('aggregation');
    const step = aggregationText === null ? undefined : Number(aggregationText);
    const market = opts.engine.marketInfo(symbol);
    const b = opts.engine.book(symbol, step === undefined ? nlevels : Infinity);
    if (!b || !market) throw new HttpError(404, 'UNKNOWN_SYMBOL', `unknown symbol ${JSON.stringify(symbol.slice(0, 32))}`);
    if (step === undefined) return JSON.stringify({ updateType: 'snapshot', symbol, levels: [b.bids, b.asks], timestamp: toMs(b.timestamp) });
    const ticks = step / market.tickSize;
    if (!(Number.isFinite(ticks) && ticks >= 1 && Math.abs(ticks - Math.round(ticks)) < 1e-9)) {
      throw new HttpError(400, 'BAD_REQUEST', `aggregation must be a positive multiple of the tick size ${market.tickSize}`);
    }
    const levels = [aggregate(b.bids, step, market.lotSize, false).slice(0, nlevels), aggregate(b.asks, step, market.lotSize, true).slice(0, nlevels)];
    return JSON.stringify({ updateType: 'snapshot', symbol, levels, timestamp: toMs(b.timestamp) });
  };

  const knownSymbol = (symbol: string | null | undefined, name: string): string => {
    if (!symbol) throw new HttpError(400, 'BAD_REQUEST', `${name} is required`);
    if (!opts.engine.marketInfo(symbol)) throw new HttpError(404, 'UNKNOWN_SYMBOL', `unknown symbol ${JSON.stringify(symbol.slice(0, 32))}`);
    return symbol;
  };

  const ticker =
    (symbol: string): Handler =>
    () =>
      stringifyJson(opts.marketData.ticker(knownSymbol(symbol, 'symbol')));

  const klines: Handler = (_req, url) => {
    const symbol = knownSymbol(url.searchParams.get('symbol'), 'symbol');
    const interval = url.searchParams.get('interval') ?? '';
    const intervalMs = INTERVAL_MS[interval];
    if (intervalMs === undefined) throw new HttpError(400, 'BAD_REQUEST', `interval must be one of ${Object.keys(INTERVAL_MS).join(', ')}`);
    const msParam = (name: string, fallback: number) => {
      const text = url.searchParams.get(name);
      if (text === null) return fallback;
      const ms = Number(text);
      if (!Number.isSafeInteger(ms) || ms < 0) throw new HttpError(400, 'BAD_REQUEST', `${name} must be epoch milliseconds`);
      return ms;
    };
    const endMs = msParam('endTime', opts.clock.nowMs());
    return JSON.stringify(opts.marketData.candles(symbol, intervalMs, msParam('startTime', 0), endMs));
  };

  const stats: Handler = (_req, url) => {
    const period = PERIODS[url.searchParams.get('period') ?? '1d'] ?? '1d';
    return JSON.stringify(opts.marketData.exchangeStats(period, url.searchParams.get('symbol') ?? undefined));
  };

  const route = (method: string, path: string): Handler => {
    const gets: Record<string, Handler> = { '/exchangeInfo': exchangeInfo, '/l2book': l2book, '/klines': klines, '/stats': stats };
    const get = gets[path] ?? (path.startsWith('/ticker/') ? ticker(decodedSegment(path.slice('/ticker/'.length))) : undefined);
    if (get) return method === 'GET' ? get : methodNotAllowed('GET');
    const type = actionTypeForPath(path);
    if (path !== '/account' && type === undefined) throw new HttpError(404, 'NOT_FOUND', `no endpoint ${JSON.stringify(path.slice(0, 64))}`);
    if (method !== 'POST') return methodNotAllowed('POST');
    return type === undefined ? account : signed(type);
  };

  const handle = async (req: IncomingMessage): Promise<string> => {
    opts.rateLimiter?.take(req.socket.remoteAddress ?? 'unknown', opts.clock.nowMs());
    const url = requestUrl(req.url);
    if (!url.pathname.startsWith(`${API_PREFIX}/`)) throw new HttpError(404, 'NOT_FOUND', `no endpoint ${JSON.stringify(url.pathname.slice(0, 64))}`);
    return route(req.method ?? 'GET', url.pathname.slice(API_PREFIX.length))(req, url);
  };

  return (req, res) => {
    handle(req)
      .then(
        (text) => sendJson(res, 200, text),
        (e: unknown) => {
          if (!(e instanceof HttpError)) req.resume();
          if (e instanceof HttpError) sendError(res, e);
          else if (e instanceof ValidationError) sendError(res, new HttpError(400, 'BAD_REQUEST', e.message));
          else {
            opts.onInternalError(e);
            sendError(res, new HttpError(500, 'INTERNAL', 'internal error'));
          }
        },
      )
      .catch((e: unknown) => {
        opts.onInternalError(e);
        res.destroy();
      });
  };
}

function decodedSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'malformed percent-encoding in the path');
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function methodNotAllowed(allowed: string): Handler {
  return () => {
    throw new HttpError(405, 'METHOD_NOT_ALLOWED', `use ${allowed}`, { allow: allowed });
  };
}

function apply(type: ActionType, body: RequestBody, engine: Engine): unknown[] {
  const { action, account } = body;
  switch (action.type) {
    case 'order':
      return engine.applyOrderAction(account, action.orders, { ids: orderIdsOf(action, account, action.nonce), nonce: action.nonce }).statuses;
    case 'updateUserSettings':
      return [
        engine.setLeverage(
          account,
          action.settings.m.map(([symbol, leverage]): LeverageEntry => [symbol, leverage]),
        ),
      ];
    case 'agentWalletCreation':
      return [engine.setAgent(account, action.agent, action.delete)];
    case 'faucet':
      return [engine.faucet(action.user, action.amount)];
    case 'oracle':
      return [engine.setOraclePrices(action.prices)];
    default:
      throw new HttpError(400, 'BAD_REQUEST', `unsupported action type ${String(type)}`);
  }
}

/** Book levels (best first) bucketed by `step` USD (`aggregation`, §8.2): bids down, asks (`up`) up; sizes and counts summed. */
function aggregate(levels: readonly BookLevelRow[], step: number, lot: number, up: boolean): BookLevelRow[] {
  const out: BookLevelRow[] = [];
  for (const l of levels) {
    const px = roundToStep((up ? Math.ceil(l.px / step - 1e-9) : Math.floor(l.px / step + 1e-9)) * step, step);
    const last = out[out.length - 1];
    if (last?.px === px) {
      last.sz = roundToStep(last.sz + l.sz, lot);
      last.n += l.n;
    } else out.push({ px, sz: l.sz, n: l.n });
  }
  return out;
}

/** A market in the venue's documented /exchangeInfo shape (venue-protocol §8.2). */
function marketInfoRow(m: MarketInfo) {
  return {
    symbol: m.symbol,
    baseAsset: m.symbol.slice(0, -4),
    quoteAsset: 'USDC',
    status: 'TRADING',
    pricePrecision: decimalsOf(m.tickSize),
    sizePrecision: decimalsOf(m.lotSize),
    tickSize: m.tickSize,
    lotSize: m.lotSize,
    minNotional: m.minNotional,
    maxLeverage: m.maxLeverage,
    // every type the local venue runs: take-profit, range, trigger basket and trailing through the current envelope
    orderTypes: ['LIMIT', 'MARKET', 'STOP', 'STOP_LIMIT', 'TAKE_PROFIT', 'RANGE', 'TRIGGER', 'TRAILING'],
    timeInForces: ['GTC', 'IOC', 'ALO'],
  };
}
