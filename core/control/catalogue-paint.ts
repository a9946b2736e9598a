// The catalogue's declarations of Paint Pixels and Paint Theme (issue 29), kept apart from catalogue.ts to keep it
// short: the same shape, spread into OPERATIONS there. Served beside /v1 (`api: 'lightwire'`): the cloud's API has no
// such endpoints. Pure data: the shared Set State parameters (duration, power_on) come from catalogue.ts as arguments,
// so each is still declared once.

import type { ParamDecl } from './catalogue.js';
import { THEME_PALETTES } from './theme-palettes.js';

/** Set64 and CopyFrameBuffer address pixels with u8 coordinates: a canvas is at most 256 pixels across. */
export const MAX_CANVAS = 256;
/** The themes a Paint Theme knows, in the palette file's order. */
export const THEME_NAMES: readonly string[] = Object.freeze(Object.keys(THEME_PALETTES));

const param = <const P extends ParamDecl>(p: P): P => p;

/** Paint Pixels and Paint Theme, with the catalogue's own `duration` and `power_on` parameters. */
export const pixelOperations = <const D extends ParamDecl, const O extends ParamDecl>(DURATION: D, POWER_ON: O) =>
  ({
    paint: {
      name: 'paint',
      summary: 'Paint Pixels (matrix)',
      method: 'PUT',
      path: '/lights/:selector/pixels',
      scope: 'control',
      api: 'lightwire',
      params: [
        param({ v1: 'pixels', key: 'pixels', kind: 'grid', minItems: 1, maxItems: MAX_CANVAS, description: 'Rows of colours, top to bottom, painted from (x, y); give this or color.' }),
        param({ v1: 'color', key: 'color', kind: 'color', description: 'One colour for the rectangle x, y, width, height; give this or pixels.' }),
        param({ v1: 'x', key: 'x', kind: 'number', min: 0, max: MAX_CANVAS - 1, unit: 'count', default: 0, description: 'Column of the left edge, 0 at the left of the canvas (the tiles of a chain side by side).' }),
        param({ v1: 'y', key: 'y', kind: 'number', min: 0, max: MAX_CANVAS - 1, unit: 'count', default: 0, description: 'Row of the top edge, 0 at the top.' }),
        param({ v1: 'width', key: 'width', kind: 'number', min: 1, max: MAX_CANVAS, unit: 'count', description: 'Columns of the rectangle of color (default: to the right edge).' }),
        param({ v1: 'height', key: 'height', kind: 'number', min: 1, max: MAX_CANVAS, unit: 'count', description: 'Rows of the rectangle of color (default: to the bottom edge).' }),
        DURATION,
        POWER_ON,
      ],
      needs: 'matrix',
      read: 'state',
    },
    theme: {
      name: 'theme',
      summary: 'Paint Theme',
      method: 'PUT',
      path: '/lights/:selector/theme',
      scope: 'control',
      api: 'lightwire',
      params: [
        param({ v1: 'theme', key: 'theme', kind: 'text', required: true, values: THEME_NAMES, description: "The theme's name (GET /lightwire/themes lists them)." }),
        DURATION,
        POWER_ON,
      ],
      read: 'state',
    },
  }) as const;
