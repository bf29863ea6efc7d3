// The three outcomes of sending a signed action (accepted / rejected / unknown) and how an HTTP answer maps onto them.
// Invariant: `unknown` whenever the venue may have acted unseen (timeout, lost after write, 408/5xx, unreadable 200).

import { parseJson } from '../core/json.js';
import { array, custom, invalid, literal, object, parse, safeParse, string, type Infer } from '../core/schema.js';
import type { Dialect } from '../core/types.js';
import type { SignedRequest } from '../protocol/sign.js';
import { inboundCodecFor } from '../protocol/inbound.js';
import { errorBodySchema, type ErrorBody } from '../protocol/v1/responses.js';

const statusEntry = custom<Record<string, unknown>>('object', (v) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) invalid('expected an object keyed by a status name');
  return v as Record<string, unknown>;
});

/** The `{status, response: {type, data: {statuses}}}` envelope both dialects answer with. */
export const actionEnvelopeSchema = object({
  status: literal('ok', 'error'),
  response: object({ type: string({ maxLength: 64 }), data: object({ statuses: array(statusEntry) }) }),
});
export type ActionEnvelope = Infer<typeof actionEnvelopeSchema>;

export type SubmitOutcome =
  /** The venue processed the action (`status: ok`); individual items may still be rejected in `statuses`. */
  | { outcome: 'accepted'; response: ActionEnvelope }
  /** The venue refused the request as a whole; nothing changed (gaps §4). */
  | { outcome: 'rejected'; reason: string; httpStatus: number | undefined; code: string | undefined; retryAfterMs: number | undefined }
  /** The venue may or may not have acted: resolve by querying it, or re-send `request` unchanged. */
  | { outcome: 'unknown'; reason: string; request: SignedRequest };

export interface HttpAnswer {
  status: number;
  body: string;
  retryAfterMs: number | undefined;
}

/**
 * Validates a 200 answer with the dialect's response validators (v1: per action type; current: POST /order, mapped
 * onto v1 status keys); a path the dialect defines no answer for is checked at the envelope level only.
 */
function parseAnswer(dialect: Dialect, path: string, json: unknown): ActionEnvelope | ErrorBody {
  const answer = inboundCodecFor(dialect).parseActionResponse(path, json);
  if (answer) return answer as ActionEnvelope | ErrorBody;
  return looksLikeErrorBody(json) ? parse(errorBodySchema, json) : parse(actionEnvelopeSchema, json);
}

function isErrorBody(answer: ActionEnvelope | ErrorBody): answer is ErrorBody {
  return !('response' in answer);
}

function looksLikeErrorBody(json: unknown): boolean {
  return typeof json === 'object' && json !== null && 'error' in json && !('response' in json);
}

function firstErrorMessage(envelope: ActionEnvelope): string {
  const first = envelope.response.data.statuses[0];
  const error = first?.error as { message?: unknown } | undefined;
  return typeof error?.message === 'string' ? error.message : 'the venue answered status "error"';
}

function errorBodyOf(text: string): { code: string | undefined; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { code: undefined, message: text.slice(0, 200) };
  }
  const body = safeParse(errorBodySchema, json);
  return body.ok ? { code: body.value.error.code, message: body.value.error.message } : { code: undefined, message: text.slice(0, 200) };
}

/** Maps a complete HTTP answer to a submit outcome. */
export function outcomeOf(dialect: Dialect, request: SignedRequest, answer: HttpAnswer): SubmitOutcome {
  const { status } = answer;
  if (status === 408 || status >= 500) return { outcome: 'unknown', reason: `HTTP ${status}`, request };
  if (status !== 200) {
    const { code, message } = errorBodyOf(answer.body);
    return { outcome: 'rejected', reason: message, httpStatus: status, code, retryAfterMs: answer.retryAfterMs };
  }
  let parsed: ActionEnvelope | ErrorBody;
  try {
    parsed = parseAnswer(dialect, request.encoded.path, parseJson(answer.body));
  } catch (e) {
    return { outcome: 'unknown', reason: `unreadable answer: ${(e as Error).message}`, request };
  }
  if (isErrorBody(parsed)) return { outcome: 'rejected', reason: parsed.error.message, httpStatus: status, code: parsed.error.code, retryAfterMs: undefined };
  if (parsed.status === 'error')
    return { outcome: 'rejected', reason: firstErrorMessage(parsed), httpStatus: status, code: undefined, retryAfterMs: undefined };
  return { outcome: 'accepted', response: parsed };
}

/** True when every item of the signed action is a cancel (either dialect): such requests use the cancel budget. */
