// A message is data: a type number, an ordered payload field table and, for requests, the name of the
// State message the device answers with. Encode/decode/size come from the table.

import { struct, type FieldSpec, type StructType } from '../field-types.js';

export interface MessageSpec<T extends number = number, F extends readonly FieldSpec[] = readonly FieldSpec[]> {
  readonly type: T;
  readonly payload: StructType<F>;
  /** The State message a Get produces, or a Set produces when res_required is set. */
  readonly reply?: string;
}

export function message<const T extends number, const F extends readonly FieldSpec[]>(
  type: T,
  fields: F,
  options: { reply?: string } = {},
): MessageSpec<T, F> {
  return options.reply === undefined ? { type, payload: struct(fields) } : { type, payload: struct(fields), reply: options.reply };
}
