// The API's names of protobuf enum values, read from the generated descriptors rather than
// written out beside each enum: ACCOUNT_STATUS_NO_CARD is "no_card", JOB_STATUS_PENDING "pending".
// The zero value (…_UNSPECIFIED) has no name: it means "not set".
import type { DescEnum } from '@bufbuild/protobuf';

export interface EnumNames<E extends number, N extends string> {
  /** Every name, in the order the .proto declares the values. */
  readonly names: readonly N[];
  /** The value's name, or undefined for the zero value and numbers the enum does not have. */
  name(value: E): N | undefined;
  /** The value of a name, or undefined when the enum has no such name. */
  value(name: string): E | undefined;
}

/**
 * Names for the values of `schema`: each value's local name in lower case. `N` is the union of
 * names the caller's types use; the unit test of each enum checks that it matches the descriptor.
 */
export function enumNames<E extends number, N extends string = string>(schema: DescEnum): EnumNames<E, N> {
  const pairs = schema.values.filter((v) => v.number !== 0).map((v) => [v.localName.toLowerCase() as N, v.number as E] as const);
  const byName = new Map<string, E>(pairs);
  const byValue = new Map<number, N>(pairs.map(([n, v]) => [v, n]));
  return {
    names: pairs.map(([n]) => n),
    name: (value) => byValue.get(value),
    value: (name) => byName.get(name),
  };
}
