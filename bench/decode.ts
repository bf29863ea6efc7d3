// Benchmark `decode`: one v1 stream message validated into the model (the inbound codec's decodeStream on JSON already
// parsed by parseJson, so ns timestamps arrive as decimal strings), with the schemas' compiled checks against the
// interpreter, in interleaved rounds of the same run. Account messages carry a u64 timestamp, so their schemas transform
// (the output is a new object with a bigint); a book delta's does not (its input is returned as it is).

import { parseJson } from '../src/core/json.js';
import { setSchemaCompilation } from '../src/core/schema.js';
import { v1Inbound } from '../src/protocol/v1/inbound.js';
import { compareRates, report } from './lib.js';

const BENCH = 'decode';
const KEY = '5KJvsngHeMpm884wtkJNzQGaCErckhHJBGFsvd3VyK5q';
const TS = '1764000000123456789';

const frames: Record<string, string> = {
  order_update: `{"type":"account","data":{"type":"orderUpdate","status":"placed","symbol":"BTC-USD","orderId":"${KEY}","price":90000.5,"originalSize":0.01,"size":0.01,"filledSize":0,"vwap":0,"isBuy":true,"maker":true,"timestamp":${TS},"reason":null},"topic":"account.${KEY}"}`,
  fill: `{"type":"account","data":{"type":"fill","symbol":"BTC-USD","orderId":"${KEY}","price":90000.5,"size":0.01,"fee":0.09,"isBuy":true,"reasonCode":0,"counterpartyHint":"Abcd..wxyz","timestamp":${TS},"maker":true},"topic":"account.${KEY}"}`,
  l2_delta: `{"type":"l2Delta","data":{"book":{"updateType":"delta","symbol":"BTC-USD","levels":[[{"px":89999.5,"sz":1.25,"n":2}],[]],"timestamp":1764000000123}},"topic":"l2delta.BTC-USD"}`,
};

/** Decodes `value` with compiled checks on or off (the switch is global; each call sets it, as a round alternates). */
const decoding = (value: unknown, compiled: boolean) => () => {
  setSchemaCompilation(compiled);
  v1Inbound.decodeStream(value);
};

for (const [kind, text] of Object.entries(frames)) {
  const value = parseJson(text);
  const rates = compareRates({ compiled: decoding(value, true), interpreted: decoding(value, false) });
  report(BENCH, `${kind}_per_s`, rates.compiled!, 'msg/s');
  report(BENCH, `${kind}_interpreted_per_s`, rates.interpreted!, 'msg/s');
  report(BENCH, `${kind}_compiled_ratio`, rates.compiled! / rates.interpreted!, 'x');
}
setSchemaCompilation(true);
