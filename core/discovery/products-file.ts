// A newer vendor products.json read at run time (https://github.com/LIFX/products), laid over the bundled registry
// for one client: lights newer than the package are known without a release. A file that cannot be used is one coded
// error (PRODUCTS_FILE_INVALID) and changes nothing.

import { fsPromises } from '../builtins.js';
import { isLightwireError, LightwireError } from '../errors.js';
import { parseVendorRegistry, PRODUCTS, ProductRegistry } from '../protocol/index.js';

function invalid(file: string, reason: string): LightwireError<'PRODUCTS_FILE_INVALID'> {
  return new LightwireError('PRODUCTS_FILE_INVALID', { file, reason });
}

/** The products of a products.json text laid over `base`; PRODUCTS_FILE_INVALID naming the first problem. */
export function productsFromJson(file: string, text: string, base: ProductRegistry = PRODUCTS): ProductRegistry {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw invalid(file, `not JSON (${(err as Error).message})`);
  }
  try {
    return base.extendedWith(parseVendorRegistry(raw));
  } catch (err) {
    if (isLightwireError(err, 'PRODUCT_DATA_INVALID')) throw invalid(file, err.params.reason);
    throw err;
  }
}

/** Reads a products.json and lays it over `base` (the bundled registry unless given). */
export async function loadProductsFile(file: string, base: ProductRegistry = PRODUCTS): Promise<ProductRegistry> {
  let text: string;
  try {
    // node:fs/promises is loaded only here, by a service given a products file (core/builtins.ts).
    text = await fsPromises().readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw invalid(file, code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? (err as Error).message})`);
  }
  return productsFromJson(file, text, base);
}

/** The `products` option: a ProductRegistry (loadProductsFile makes one from a file), or OPTIONS_INVALID. */
export function registryOption(value: unknown): ProductRegistry {
  if (value instanceof ProductRegistry) return value;
  throw new LightwireError('OPTIONS_INVALID', { option: 'products', reason: 'must be a ProductRegistry' });
}
