// Typed HTTP client of the venue: account queries, exchangeInfo, l2book and signed actions; keep-alive, timeouts, rate limits.
// Invariants: only idempotent reads are retried; a signed action is never re-signed, and sent again (the same bytes) only
// after the venue refused it with HTTP 429 (it then changed nothing); cancels have their own budget and go first after a 429.

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { systemClock, type Clock } from '../core/clock.js';
import { ConfigError, TransportError, VenueRejectError } from '../core/errors.js';
import { parseJson } from '../core/json.js';
import { parse, safeParse } from '../core/schema.js';
import type { Dialect } from '../core/types.js';
import type { SignedRequest } from '../protocol/sign.js';
import { inboundCodecFor, type InboundCodec } from '../protocol/inbound.js';
import { currentAccountQuerySchema } from '../protocol/current/account-query.js';
import { currentOnlyAccountQueries, type CurrentOnlyQueryType } from '../protocol/current/inbound-account.js';
import { currentExchangeInfoSchema } from '../protocol/current/inbound-market.js';
import { accountQuerySchema, type AccountQueryType, type AccountResponse } from '../protocol/v1/account.js';
import { errorBodySchema } from '../protocol/v1/responses.js';
import { bookSchema, type Book } from '../protocol/v1/stream.js';
import { backoffDelayMs, type BackoffOptions } from '../core/backoff.js';
import { exchangeInfoSchema, type MarketInfo } from '../protocol/v1/exchange-info.js';
import { RawHttpPool } from './raw-http.js';
import { realSleep, RetryAfterGate, TokenBucket, type RateLimit, type Sleep } from './rate-limit.js';
import { outcomeOf, type HttpAnswer, type SubmitOutcome } from './submit.js';

export interface HttpClientOptions {
  /** REST base URL ending in the version prefix, e.g. `http://127.0.0.1:8080/api/v1`. */
  baseUrl: string;
  /** Wire dialect of the venue: decides how answers are validated and mapped onto the (v1) model. Default `v1`. */
  dialect?: Dialect;
  /** Per-request limit, ms. Default 10 000. */
  timeoutMs?: number;
  /** Reads and non-cancel actions. Default 20/s, burst 40. */
  rateLimit?: RateLimit;
  /** Actions made only of cancels. Default 50/s, burst 100. */
  cancelRateLimit?: RateLimit;
  /** Extra attempts of a failed read (HTTP 429 answers not counted). Default 3. */
  readRetries?: number;
  /**
   * HTTP 429 is back-pressure: every request waits out the answer's Retry-After (DEFAULT_RETRY_AFTER_MS when absent),
   * then the refused one is sent again. A request refused for longer than this in total (ms) gives up: a read throws,
   * an action is `rejected` with httpStatus 429. Default 30 000.
   */
  rateLimitMaxWaitMs?: number;
  /** Delay between read attempts. Default 200 ms doubling to 5 s. */
  backoff?: BackoffOptions;
  /** Largest answer accepted, bytes. Default 64 MiB. */
  maxBodyBytes?: number;
  /** Keep-alive sockets per host. Default 16. */
  maxSockets?: number;
  /**
   * Signed actions over plain http: connected idle sockets kept ready while actions are being sent, so that a burst
   * or the first action after a pause does not wait for a TCP handshake. Default 2; 0 opens sockets on demand.
   */
  spareSockets?: number;
  /**
   * Signed cancel-only actions over plain http: further connected idle sockets only they take (beyond maxSockets), so a
   * cancel or a kill never waits for a handshake behind a burst of orders. Default 1.
   */
  urgentSpareSockets?: number;
  clock?: Clock;
  sleep?: Sleep;
  random?: () => number;
}

/** Callbacks around one submit (execution measures tick-to-trade at the write). */
export interface SubmitHooks {
  onWritten?(): void;
}

export interface HttpStats {
  requests: number;
  /** Answers HTTP 429 (rate limited). */
  rateLimited: number;
  readRetries: number;
  timeouts: number;
  /** Answers that could not be used: broken HTTP framing, or a 200 whose body is not JSON or fails the schema. */
  invalidAnswers: number;
  outcomes: Record<SubmitOutcome['outcome'], number>;
}

/** A request that failed in transport; `written` tells whether its bytes had been handed to the socket. */
class TransportFailure extends Error {
  constructor(
    message: string,
    readonly written: boolean,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

const RETRYABLE = (status: number) => status === 408 || status >= 500;

/** The wait after a 429 without a readable Retry-After, ms. */
const DEFAULT_RETRY_AFTER_MS = 1_000;
/** The shortest wait after a 429 (a `Retry-After: 0` still backs off a little), ms. */
const MIN_RETRY_AFTER_MS = 50;

export class HttpClient {
  /** Path of the base URL (ending in `/`), kept as text: no URL getter per request. */
  private readonly basePath: string;
  private readonly dialect: Dialect;
  private readonly inbound: InboundCodec;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly maxBodyBytes: number;
  private readonly sleep: Sleep;
  private readonly agent: HttpAgent;
  private readonly request: typeof httpRequest;
  /** Signed actions over plain http go through this pool (written synchronously on an open socket). */
  private readonly raw: RawHttpPool | undefined;
  /** Request options without the path, shared by every request (no URL parsing per request). */
  private readonly target: { readonly protocol: string; readonly hostname: string; readonly port: string; readonly auth: string | undefined };
  private readonly normal: TokenBucket;
  private readonly cancels: TokenBucket;
  private readonly retryAfter: RetryAfterGate;
  private readonly rateLimitMaxWaitMs: number;
  readonly stats: HttpStats = {
    requests: 0,
    rateLimited: 0,
    readRetries: 0,
    timeouts: 0,
    invalidAnswers: 0,
    outcomes: { accepted: 0, rejected: 0, unknown: 0 },
  };

  constructor(private readonly opts: HttpClientOptions) {
    const base = new URL(opts.baseUrl.endsWith('/') ? opts.baseUrl : `${opts.baseUrl}/`);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new RangeError(`baseUrl must be http(s), got ${opts.baseUrl}`);
    this.basePath = base.pathname;
    this.dialect = opts.dialect ?? 'v1';
    this.inbound = inboundCodecFor(this.dialect);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retries = opts.readRetries ?? 3;
    this.maxBodyBytes = opts.maxBodyBytes ?? 64 * 1024 * 1024;
    this.sleep = opts.sleep ?? realSleep;
    const agentOptions = { keepAlive: true, maxSockets: opts.maxSockets ?? 16 };
    this.agent = base.protocol === 'https:' ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.request = base.protocol === 'https:' ? httpsRequest : httpRequest;
    const { protocol, hostname, port, username, password } = base;
    this.target = {
      protocol,
      hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
      port,
      auth: username || password ? `${decodeURIComponent(username)}:${decodeURIComponent(password)}` : undefined,
    };
    const clock = opts.clock ?? systemClock();
    this.raw =
      protocol === 'http:' && this.target.auth === undefined
        ? new RawHttpPool({
            host: this.target.hostname,
            port: Number(port || 80),
            hostHeader: base.host,
            maxSockets: agentOptions.maxSockets,
            maxBodyBytes: this.maxBodyBytes,
            idleMs: 4_000,
            spare: opts.spareSockets ?? 2,
            urgentSpare: opts.urgentSpareSockets ?? 1,
            nowMs: () => clock.nowMs(),
          })
        : undefined;
    this.normal = new TokenBucket(opts.rateLimit ?? { perSecond: 20, burst: 40 }, clock, this.sleep);
    this.cancels = new TokenBucket(opts.cancelRateLimit ?? { perSecond: 50, burst: 100 }, clock, this.sleep);
    this.retryAfter = new RetryAfterGate(clock, this.sleep);
    this.rateLimitMaxWaitMs = opts.rateLimitMaxWaitMs ?? 30_000;
  }

  /** POST /account; throws TransportError after the retries, VenueRejectError on a 4xx, ValidationError on a malformed answer. */
  account<T extends AccountQueryType>(type: T, user: string): Promise<AccountResponse<T>> {
    const body = JSON.stringify(parse(accountQuerySchema, { type, user }));
    return this.read('POST', '/account', body, (json) => this.inbound.parseAccountResponse(type, json));
  }

  /**
   * POST /account of a type only the current generation has (activityHistory, riskHistory, feeTier; `symbol` scopes
   * feeTier); a ConfigError in the v1 dialect, otherwise as account().
   */
  currentAccount<T extends CurrentOnlyQueryType>(type: T, user: string, symbol?: string): Promise<ReturnType<(typeof currentOnlyAccountQueries)[T]>> {
    if (this.dialect !== 'current') throw new ConfigError('dialect', `${type} is a query of the current dialect only; this client speaks ${this.dialect}`);
    const body = JSON.stringify(parse(currentAccountQuerySchema, { type, user, ...(symbol !== undefined && { symbol }) }));
    return this.read('POST', '/account', body, (json) => currentOnlyAccountQueries[type](json) as ReturnType<(typeof currentOnlyAccountQueries)[T]>);
  }

  /** GET /exchangeInfo: every listed market (the current dialect's rows carry status, precisions, ... too). */
  exchangeInfo(): Promise<MarketInfo[]> {
    const schema = this.dialect === 'current' ? currentExchangeInfoSchema : exchangeInfoSchema;
    return this.read('GET', '/exchangeInfo', undefined, (json) => parse(schema, json));
  }

  /** GET /l2book: the book of `symbol`, `nlevels` per side when given (bids best first, asks best first; one shape in both dialects). */
  l2book(symbol: string, nlevels?: number): Promise<Book> {
    const query = new URLSearchParams({ type: 'l2book', coin: symbol });
    if (nlevels !== undefined) query.set('nlevels', String(nlevels));
    return this.read('GET', `/l2book?${query}`, undefined, (json) => parse(bookSchema, json));
  }

  /**
   * Sends a signed action once (to `encoded.path`); `hooks.onWritten` runs once the request is fully written to the
   * socket. Never throws for venue or transport failures: see SubmitOutcome.
   */
  async submit(request: SignedRequest, hooks?: SubmitHooks): Promise<SubmitOutcome> {
    const cancelOnly = request.encoded.cancelOnly;
    const bucket = cancelOnly ? this.cancels : this.normal;
    let outcome: SubmitOutcome;
    for (let limitedMs = 0; ; ) {
      if (this.retryAfter.shut) await this.retryAfter.wait(cancelOnly);
      if (!bucket.tryTake()) await bucket.take();
      try {
        const answer = await this.post(request.encoded.path, request.bodyText, cancelOnly, hooks?.onWritten);
        outcome = outcomeOf(this.dialect, request, answer);
        if (outcome.outcome === 'unknown' && answer.status === 200) this.stats.invalidAnswers++;
      } catch (e) {
        const f = e as TransportFailure;
        outcome = f.written
          ? { outcome: 'unknown', reason: f.message, request }
          : { outcome: 'rejected', reason: `not sent: ${f.message}`, httpStatus: undefined, code: undefined, retryAfterMs: undefined };
      }
      if (outcome.outcome !== 'rejected' || outcome.httpStatus !== 429) break;
      limitedMs += this.rateLimited(outcome.retryAfterMs);
      if (limitedMs > this.rateLimitMaxWaitMs) break;
    }
    this.stats.outcomes[outcome.outcome]++;
    return outcome;
  }

  /** Builds the request text submit() would write (over the raw pool), sending and counting nothing (the venue's rehearsal). */
  warm(request: SignedRequest): void {
    this.raw?.requestText('POST', this.pathOf(request.encoded.path), request.bodyText);
  }

  /** Sends the identical signed bytes of an unknown outcome again (same nonce, same order ids: it cannot double an order). */
  resend(unknown: Extract<SubmitOutcome, { outcome: 'unknown' }>): Promise<SubmitOutcome> {
    return this.submit(unknown.request);
  }

  /** Closes the keep-alive sockets. */
  close(): void {
    this.retryAfter.open();
    this.agent.destroy();
    this.raw?.close();
  }

  /**
   * Counts a 429 and shuts the gate for its Retry-After, at most rateLimitMaxWaitMs (a venue asking for days must not
   * hold every later request, cancels included: each gives up by its own budget); returns the asked wait, ms.
   */
  private rateLimited(retryAfterMs: number | undefined): number {
    this.stats.rateLimited++;
    const waitMs = Math.max(MIN_RETRY_AFTER_MS, retryAfterMs ?? DEFAULT_RETRY_AFTER_MS);
    this.retryAfter.pause(Math.min(waitMs, this.rateLimitMaxWaitMs));
    return waitMs;
  }

  private async read<T>(method: 'GET' | 'POST', path: string, body: string | undefined, parseBody: (json: unknown) => T): Promise<T> {
    for (let attempt = 0, limitedMs = 0; ; attempt++) {
      if (this.retryAfter.shut) await this.retryAfter.wait(false);
      await this.normal.take();
      let answer: HttpAnswer | undefined;
      let failure: string;
      try {
        answer = await this.send(method, path, body);
        if (answer.status === 200) return this.usable(answer.body, parseBody);
        failure = `HTTP ${answer.status}`;
        if (answer.status === 429) {
          limitedMs += this.rateLimited(answer.retryAfterMs);
          if (limitedMs > this.rateLimitMaxWaitMs)
            throw new TransportError(`${method} ${path}: rate limited (HTTP 429) for over ${this.rateLimitMaxWaitMs} ms`);
          attempt--;
          continue;
        }
        if (!RETRYABLE(answer.status)) {
          const e = safeParse(errorBodySchema, safeJson(answer.body));
          throw new VenueRejectError(`${method} ${path}: ${e.ok ? `${e.value.error.code}: ${e.value.error.message}` : failure}`);
        }
      } catch (e) {
        if (!(e instanceof TransportFailure)) throw e;
        failure = e.message;
      }
      if (attempt >= this.retries) throw new TransportError(`${method} ${path} failed after ${attempt + 1} attempts: ${failure}`);
      this.stats.readRetries++;
      const waitMs = Math.max(answer?.retryAfterMs ?? 0, backoffDelayMs(attempt, this.opts.backoff ?? { initialMs: 200, maxMs: 5_000 }, this.opts.random));
      await this.sleep(waitMs);
    }
  }

  /** The parsed body of a 200 answer; one that is not JSON or fails `parseBody` is counted, and its error thrown. */
  private usable<T>(body: string, parseBody: (json: unknown) => T): T {
    try {
      return parseBody(parseJson(body));
    } catch (e) {
      this.stats.invalidAnswers++;
      throw e;
    }
  }

  /** POSTs a signed action: through the raw pool over plain http (`urgent`: a cancel, see RawHttpPool.request), else like a read. */
  private post(path: string, body: string, urgent: boolean, onWritten?: () => void): Promise<HttpAnswer> {
    const raw = this.raw;
    if (!raw) return this.send('POST', path, body, onWritten);
    this.stats.requests++;
    return new Promise<HttpAnswer>((resolve, reject) => {
      let written = false;
      let settled = false;
      const settle = () => {
        settled = true;
        clearTimeout(timer);
      };
      const abort = raw.request(
        'POST',
        this.pathOf(path),
        body,
        {
          written: () => {
            written = true;
            onWritten?.();
          },
          answer: (status, headers, text) => {
            if (settled) return;
            settle();
            resolve({ status, body: text, retryAfterMs: retryAfterMs(headers.get('retry-after')) });
          },
          failed: (message, malformed) => {
            if (settled) return;
            settle();
            if (malformed) this.stats.invalidAnswers++;
            reject(new TransportFailure(message, written, false));
          },
        },
        urgent,
      );
      const timer = setTimeout(() => {
        if (settled) return;
        settle();
        this.stats.timeouts++;
        abort();
        reject(new TransportFailure(`timed out after ${this.timeoutMs} ms`, written, true));
      }, this.timeoutMs);
    });
  }

  private pathOf(path: string): string {
    return this.basePath + (path.startsWith('/') ? path.slice(1) : path);
  }

  private send(method: 'GET' | 'POST', path: string, body: string | undefined, onWritten?: () => void): Promise<HttpAnswer> {
    this.stats.requests++;
    const fullPath = this.pathOf(path);
    return new Promise<HttpAnswer>((resolve, reject) => {
      let written = false;
      let settled = false;
      const fail = (message: string, timedOut = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (timedOut) this.stats.timeouts++;
        reject(new TransportFailure(message, written, timedOut));
        req.destroy();
      };
      const headers: Record<string, string | number> =
        body === undefined
          ? { accept: 'application/json' }
          : { accept: 'application/json', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
      const req = this.request({ ...this.target, path: fullPath, method, agent: this.agent, headers }, (res) =>
        this.collect(
          res,
          (message) => fail(message),
          (answer) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve(answer);
          },
        ),
      );
      const timer = setTimeout(() => fail(`timed out after ${this.timeoutMs} ms`, true), this.timeoutMs);
      req.on('finish', () => {
        written = true;
        onWritten?.();
      });
      let malformed = false;
      req.on('error', (e: NodeJS.ErrnoException) => {
        // llhttp's codes: the answer broke HTTP framing (not a lost connection); counted once per request.
        if (!malformed && e.code?.startsWith('HPE_')) {
          malformed = true;
          this.stats.invalidAnswers++;
        }
        fail(e.message);
      });
      req.end(body);
    });
  }

  private collect(res: IncomingMessage, fail: (message: string) => void, done: (answer: HttpAnswer) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > this.maxBodyBytes) return fail(`answer larger than ${this.maxBodyBytes} bytes`);
      chunks.push(chunk);
    });
    res.on('error', (e) => fail(e.message));
    res.on('close', () => {
      if (!res.complete) fail('connection lost while reading the answer');
    });
    res.on('end', () => {
      done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), retryAfterMs: retryAfterMs(res.headers['retry-after']) });
    });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Retry-After as delay-seconds or an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfterMs(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
