// `perpbot watch <topic...>`: subscribe to venue topics and print every message until interrupted (or --count).
// Invariant: messages are validated before they are printed; the connection reconnects and resubscribes by itself.

import { merge, take } from 'rxjs';
import { stringifyJson } from '../../core/json.js';
import { WsPool } from '../../client/ws-pool.js';
import { subscriptionOfTopic } from '../../client/topics.js';
import type { StreamMessage } from '../../protocol/v1/stream.js';
import { parseCommand, UsageError } from '../args.js';
import { positiveNumber, VENUE_HELP, VENUE_OPTIONS, venueOf } from './connection.js';

export const watchHelp = `perpbot watch TOPIC... [--count N] [venue options]

Prints the messages of each topic, one per line, until Ctrl-C (or N messages with --count).
Topics: ticker.SYM, trades.SYM, l2delta.SYM, l2snapshot.SYM, risk.SYM, frontendContext, account.PK

${VENUE_HELP}`;

export function watch(argv: string[], out: (line: string) => void): Promise<number> | number {
  const { values, positionals } = parseCommand(argv, { ...VENUE_OPTIONS, count: { type: 'string' } }, true);
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
  const pool = new WsPool({ url: venue.wsUrl, dialect: venue.dialect });
  const print = (m: StreamMessage) => out(venue.json ? stringifyJson(m) : line(m));
  return new Promise<number>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      sub.unsubscribe();
      pool.close();
      resolve(0);
    };
    const sub = merge(...subscriptions.map((s) => pool.topic$(s)))
      .pipe(take(count))
      .subscribe({ next: print, complete: stop });
    process.on('SIGINT', stop);
  });
}

function line(m: StreamMessage): string {
  const topic = 'topic' in m ? m.topic : '';
  const data = 'data' in m ? stringifyJson(m.data) : '';
  return `${topic}  ${data}`;
}
