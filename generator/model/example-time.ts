// Moves an example's time-bound values (`OperationModel.timeBound`) from the moment the examples are written
// against (`x-examples-reference-time`) to another moment, a target's current time: each value keeps its
// distance from "now", so an expiry "in 3 days" stays in 3 days whatever the date, and "already passed" stays passed.
import type { Json, JsonObject, TimeBoundField } from './types.js';

/** One value moved: the field, the example's value and the value sent instead. */
export interface Redated {
  field: string;
  from: string;
  to: string;
}

const ISO_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** A card's expiry as printed on it; it lasts until the end of that month. */
const MONTH_YEAR = /^(0[1-9]|1[0-2])\/(\d{2})$/;

/** The moment a time-bound value stands for, in epoch ms (`MM/YY`: the last millisecond of that month); undefined for other text. */
export function timeOfValue(value: Json | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const card = MONTH_YEAR.exec(value);
  if (card) return Date.UTC(2000 + Number(card[2]), Number(card[1]), 1) - 1;
  const ms = ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** The value moved by `shiftMs`, written in its own form (UTC, milliseconds only where it had them); undefined when it is no time. */
export function shiftValue(value: string, shiftMs: number): string | undefined {
  const at = timeOfValue(value);
  if (at === undefined) return undefined;
  const moved = new Date(at + shiftMs);
  if (MONTH_YEAR.test(value))
    return `${String(moved.getUTCMonth() + 1).padStart(2, '0')}/${String(moved.getUTCFullYear() % 100).padStart(2, '0')}`;
  const iso = moved.toISOString();
  return ISO_TIME.exec(value)?.[2] === undefined ? iso.replace(/\.\d{3}Z$/, 'Z') : iso;
}

function valueAt(value: Json, path: readonly string[]): Json | undefined {
  return path.reduce<Json | undefined>(
    (node, key) => (typeof node === 'object' && node !== null && !Array.isArray(node) ? node[key] : undefined),
    value,
  );
}

function withValueAt(value: Json, [head, ...rest]: readonly string[], replacement: Json): Json {
  if (head === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const copy: JsonObject = { ...value };
  copy[head] = rest.length === 0 ? replacement : withValueAt(copy[head] ?? null, rest, replacement);
  return copy;
}

/** The example with each time-bound value it holds moved by `shiftMs`, and what was moved. The example itself is left as it is. */
export function redateExample(
  example: Json,
  fields: readonly TimeBoundField[],
  shiftMs: number,
): { value: Json; redated: Redated[] } {
  let value = example;
  const redated: Redated[] = [];
  for (const { field } of fields) {
    const path = field.split('.');
    const from = valueAt(value, path);
    const to = typeof from === 'string' ? shiftValue(from, shiftMs) : undefined;
    if (typeof from !== 'string' || to === undefined || to === from) continue;
    value = withValueAt(value, path, to);
    redated.push({ field, from, to });
  }
  return { value, redated };
}
