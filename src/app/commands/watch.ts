// `perpbot watch <topic...>`: subscribe to venue topics and print every message until interrupted (or --count).
// Invariants: messages are validated before they are printed; the connection reconnects and resubscribes by itself,
// with a line per retry, and watch gives up (exit 1) once the venue stayed unreachable for --timeout; a topic the
// venue refuses ends it with the venue's error (exit 1).

import { merge, take } from 'rxjs';
import { stringifyJson } from '../../core/json.js';
import { TransportError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { WsPool } from '../../client/ws-pool.js';
import { subscriptionOfTopic } from '../../client/topics.js';
import type { StreamMessage } from '../../protocol/v1/stream.js';
import { parseCommand, UsageError } from '../args.js';
import { failureReason, secondsText } from '../daemon/venue-wait.js';
import { positiveNumber, VENUE_HELP, VENUE_OPTIONS, venueOf } from './connection.js';

export const watchHelp = `perpbot watch TOPIC... [--count N] [--timeout S] [venue options]

Prints the messages of each topic, one per line, until Ctrl-C (or N messages with --count).
Topics: ticker.SYM, trades.SYM, l2delta.SYM, l2snapshot.SYM, risk.SYM, frontendContext, account.PK
A topic the venue refuses ends watch with the venue's error (exit 1). A venue that cannot be reached
is retried with a line per attempt; after --timeout seconds without a connection (default 30) watch
gives up (exit 1).

${VENUE_HELP}`;

const DEFAULT_TIMEOUT_S = 30;

export function watch(argv: string[], out: (line: string) => void): Promise<number> | number {
  const { values, positionals } = parseCommand(argv, { ...VENUE_OPTIONS, count: { type: 'string' }, timeout: { type: 'string' } }, true);
  if (values.help) {
    out(watchHelp);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('name at least one topic');
  const subscriptions = positionals.map((t) => {
    const s = subscriptionOfTopic(t);
    if (!s) throw new UsageError(`unknown topic ${JSON.stringify(t)}`);
    return s;
  });
  const venue = venueOf(values);
  const count = values.count === undefined ? Infinity : positiveNumber('--count', values.count);
  const timeoutS = values.timeout === undefined ? DEFAULT_TIMEOUT_S : positiveNumber('--timeout', values.timeout);
  /** Why the last connection attempt failed (the connection logs it before it backs off). */
  let why = 'no answer';
  const logger: Logger = {
    info(fields) {
      const f = fields as { error?: unknown; delayMs?: unknown };
      if (typeof f.error === 'string') why = failureReason(f.error);
      if (typeof f.delayMs === 'number')
        process.stderr.write(`perpbot watch: venue ${venue.wsUrl} not reachable (${why}), retrying in ${secondsText(f.delayMs)} s\n`);
    },
    warn: () => undefined,
  };
  const pool = new WsPool({ url: venue.wsUrl, dialect: venue.dialect, logger });
  const print = (m: StreamMessage) => out(venue.json ? stringifyJson(m) : line(m));
  return new Promise<number>((resolve, reject) => {
    let giveUp: NodeJS.Timeout | undefined;
    const finish = () => {
      process.off('SIGINT', stop);
      clearTimeout(giveUp);
      sub.unsubscribe();
      pool.close();
    };
    const stop = () => {
      finish();
      resolve(0);
    };
    const fail = (e: unknown) => {
      finish();
      reject(e);
    };
    const sub = merge(...subscriptions.map((s) => pool.topic$(s)))
      .pipe(take(count))
      .subscribe({ next: print, complete: stop, error: fail });
    // While no connection is open, a timer runs; a connection opening stops it.
    for (const conn of pool.connections) {
      sub.add(
        conn.state$.subscribe((state) => {
          if (state === 'open') {
            clearTimeout(giveUp);
            giveUp = undefined;
          } else if (giveUp === undefined && state !== 'closed') {
            giveUp = setTimeout(() => fail(new TransportError(`venue ${venue.wsUrl} not reachable within ${timeoutS} s (${why})`)), timeoutS * 1000);
          }
        }),
      );
    }
    process.on('SIGINT', stop);
  });
}

function line(m: StreamMessage): string {
  const topic = 'topic' in m ? m.topic : '';
  const data = 'data' in m ? stringifyJson(m.data) : '';
  return `${topic}  ${data}`;
}
