// The interface every dialect's inbound codec implements: stream frames, account answers and action answers in the
// one model the client uses (v1's types). Invariant: type-only, so dialect codecs can depend on it without a cycle.

import type { Dialect } from '../core/types.js';
import type { OrderResponseModel } from './current/inbound-responses.js';
import type { AccountQueryType, AccountResponse } from './v1/account.js';
import type { ActionType } from './v1/actions.js';
import type { ActionResponse, ErrorBody } from './v1/responses.js';
import type { StreamMessage } from './v1/stream.js';

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
