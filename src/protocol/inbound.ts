// Inbound codecs by dialect: stream frames, account query answers and action answers validated in the dialect's
// wire shape and returned in the one model the client uses (v1's types). Invariant: `v1` only validates; `current` maps.

import type { Dialect } from '../core/types.js';
import { currentInbound } from './current/inbound.js';
import type { InboundCodec } from './inbound-codec.js';
import { v1Inbound } from './v1/inbound.js';

export type { InboundCodec } from './inbound-codec.js';

const INBOUND: Record<Dialect, InboundCodec> = { v1: v1Inbound, current: currentInbound };

export function inboundCodecFor(dialect: Dialect): InboundCodec {
  return INBOUND[dialect];
}
