// Inbound codecs by dialect: stream frames, account query answers and action answers validated in the dialect's
// wire shape and returned in the one model the client uses (v1's types). Invariant: `v1` only validates; `current` maps.

import type { Dialect } from '../core/types.js';
import { currentInbound } from './current/inbound.js';
import type { AccountQueryType, AccountResponse } from './v1/account.js';
import type { ActionType } from './v1/actions.js';
import { v1Inbound } from './v1/inbound.js';
import type { ActionResponse, ErrorBody } from './v1/responses.js';
import type { StreamMessage } from './v1/stream.js';
import type { OrderResponseModel } from './current/inbound-responses.js';

export interface InboundCodec {
  readonly name: Dialect;
  /**
   * One parsed server frame as model messages: one, or a list (empty for a valid frame the model has no place for;
   * several where one current frame carries what v1 sends apart). Throws ValidationError naming the field.
   */
  decodeStream(frame: unknown): StreamMessage | readonly StreamMessage[];
  /** The answer to an account query of `type`; throws ValidationError naming the field. */
  parseAccountResponse<T extends AccountQueryType>(type: T, json: unknown): AccountResponse<T>;
  /** The answer to a signed action sent to `path`; undefined when the dialect defines no answer for that path. */
  parseActionResponse(path: string, json: unknown): ActionResponse<ActionType> | OrderResponseModel | ErrorBody | undefined;
}

const INBOUND: Record<Dialect, InboundCodec> = { v1: v1Inbound, current: currentInbound };

export function inboundCodecFor(dialect: Dialect): InboundCodec {
  return INBOUND[dialect];
}
