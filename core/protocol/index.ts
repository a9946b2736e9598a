// core/protocol: pure, no I/O. Field types, header, message tables, codec, units, products.
export * from './codec.js';
export * from './header.js';
export * from './messages/index.js';
export * from './units.js';
export * from './products.js';
export * from './limits.js';
export {
  utf8Truncated,
  type ArrayType,
  type EnumType,
  type FieldType,
  type FieldSpec,
  type StructType,
  type WireUnit,
} from './field-types.js';
