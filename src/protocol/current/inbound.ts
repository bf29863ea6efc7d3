// The current-dialect inbound codec: the venue's present payloads validated and mapped onto the v1 model.
// Invariant: fields the model lacks stay on the objects as extra fields (typed on the *Model types).

import type { InboundCodec } from '../inbound-codec.js';
import { parseCurrentAccountResponse } from './inbound-account.js';
import { parseCurrentActionResponse } from './inbound-responses.js';
import { decodeCurrentStream } from './inbound-stream.js';

/**
 * Every current action is answered through POST /order (venue-protocol §8.2). What the v1 model cannot carry:
 * - adl, cancelOneRejected, cancelAllRejected, feeTierUpdate and legacy `order` messages: validated, then left out;
 * - statuses v1 lacks: non-terminal ones become placed/working, siblingCancelled cancelled, triggerFailed rejectedInvalid
 *   (the venue's status stays on the object as `venueStatus`); a size-only `modified` update changes state$ but, keyed
 *   like the update before it, is not repeated on orderUpdates$;
 * - order type, trigger, iso, pendingOnFill, fee tiers, hierarchy: extra fields on the objects (typed on the *Model
 *   types of these modules, not on v1's); AccountState takes reduce-only and tif from snapshots only, as for v1;
 * - positions are keyed by symbol, so an isolated and a cross position in one symbol collide.
 */
export const currentInbound: InboundCodec = {
  name: 'current',
  decodeStream: decodeCurrentStream,
  parseAccountResponse: parseCurrentAccountResponse,
  parseActionResponse: (_path, json) => parseCurrentActionResponse(json),
};
