// The v1 inbound codec: the specification's payloads, validated and returned as they are (v1 is the model).
// Invariant: no mapping; a payload that fails validation throws ValidationError naming the field.

import { parse } from '../../core/schema.js';
import type { InboundCodec } from '../inbound-codec.js';
import { parseAccountResponse } from './account.js';
import { actionTypeForPath } from './actions.js';
import { parseActionResponse } from './responses.js';
import { streamMessageSchema } from './stream.js';

export const v1Inbound: InboundCodec = {
  name: 'v1',
  decodeStream: (frame) => parse(streamMessageSchema, frame),
  parseAccountResponse,
  parseActionResponse: (path, json) => {
    const type = actionTypeForPath(path);
    return type && parseActionResponse(type, json);
  },
};
