// Registry of wire dialects by name, so configuration and the command line pick one by string.
// Invariant: every name in DIALECTS maps to exactly one codec.

import type { Dialect } from '../core/types.js';
import { currentCodec } from './current/codec.js';
import type { DialectCodec } from './dialect.js';
import { v1Codec } from './v1/codec.js';

const CODECS: Record<Dialect, DialectCodec> = { v1: v1Codec, current: currentCodec };

export function codecFor(dialect: Dialect): DialectCodec {
  return CODECS[dialect];
}
