// The current generation's account query (POST /account, venue-protocol §8.3): v1's six types plus activityHistory,
// riskHistory and feeTier, and an optional symbol (the scope of feeTier). Invariant: strict, as every request schema.

import { type Infer, literal, maybe, object } from '../../core/schema.js';
import { symbolSchema } from '../../core/types.js';
import { key32 } from '../pubkey.js';
import { ACCOUNT_QUERY_TYPES } from '../v1/account.js';

export const CURRENT_ACCOUNT_QUERY_TYPES = [...ACCOUNT_QUERY_TYPES, 'activityHistory', 'riskHistory', 'feeTier'] as const;

export const currentAccountQuerySchema = object(
  { type: literal(...CURRENT_ACCOUNT_QUERY_TYPES), user: key32(), symbol: maybe(symbolSchema) },
  { strict: true },
);
export type CurrentAccountQuery = Infer<typeof currentAccountQuerySchema>;
