/**
 * The `default` of a `switch` over a kind of the model (an error trigger's `when`...): the compiler accepts the
 * call only when every kind has its `case`, so a kind added to the union fails to compile where it is not handled.
 */
export function assertNever(value: never, what = 'kind'): never {
  throw new Error(`unhandled ${what} ${JSON.stringify(value)}`);
}
