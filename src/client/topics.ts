// Topic strings back to subscription objects (the inverse of topicsOf for single-topic subscriptions).
// Invariant: subscriptionOfTopic(t) is undefined or opens exactly the topic t.

import { safeParse } from '../core/schema.js';
import { subscriptionSchema, topicsOf, type Subscription } from '../protocol/v1/stream.js';

const STREAMS: Record<string, string> = { ticker: 'ticker', trades: 'trades', l2delta: 'l2Delta', l2snapshot: 'l2Snapshot', risk: 'risk' };

/** The subscription object of `topic` (`ticker.BTC-USD`, `account.<pk>`, `frontendContext`, ...), or undefined. */
export function subscriptionOfTopic(topic: string): Subscription | undefined {
  const dot = topic.indexOf('.');
  const stream = dot < 0 ? topic : topic.slice(0, dot);
  const arg = topic.slice(dot + 1);
  let candidate: unknown;
  if (topic === 'frontendContext') candidate = { type: 'frontendContext' };
  else if (stream === 'account') candidate = { type: 'account', user: arg };
  else if (dot > 0 && Object.hasOwn(STREAMS, stream)) candidate = { type: STREAMS[stream], symbol: arg };
  const parsed = candidate === undefined ? undefined : safeParse(subscriptionSchema, candidate);
  return parsed?.ok && topicsOf(parsed.value)[0] === topic ? parsed.value : undefined;
}
