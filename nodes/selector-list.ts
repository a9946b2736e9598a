// What the editor's selector picker offers: the config node's current lights, groups and locations, each with
// the selector that names it. Labels and names go in as `label:` / `group:` / `location:` (readable in a flow,
// and they follow a replaced bulb); one that holds a character the selector grammar reserves (`,` separates
// selectors, `|` starts zones, `:` ends a kind) is named by id instead.

import type { LightView } from '../core/index.js';
import type { Health } from './connection.js';

export interface PickerEntry {
  readonly selector: string;
  readonly label: string;
}

export interface PickerLight extends PickerEntry {
  /** The light's parts (Ceiling: downlight, uplight; Mirror: front, rear; a strip's named segments), each `SELECTOR|PART`. */
  readonly parts: readonly PickerEntry[];
  readonly online: boolean;
  readonly group: string | null;
  readonly location: string | null;
}

export interface PickerGroup extends PickerEntry {
  readonly lights: number;
}

export interface SelectorList {
  readonly health: { readonly state: Health['state']; readonly lights: number; readonly online: number; readonly offline: number };
  readonly lights: readonly PickerLight[];
  readonly groups: readonly PickerGroup[];
  readonly locations: readonly PickerGroup[];
}

const RESERVED = /[,|:]/;

function byName(kind: 'label' | 'group' | 'location', name: string, idKind: 'id' | 'group_id' | 'location_id', id: string): string {
  return name.trim() === '' || RESERVED.test(name) || name !== name.trim() ? `${idKind}:${id}` : `${kind}:${name}`;
}

function collate(a: PickerEntry, b: PickerEntry): number {
  return a.label.localeCompare(b.label) || a.selector.localeCompare(b.selector);
}

function groupsOf(views: readonly LightView[], which: 'group' | 'location'): PickerGroup[] {
  const found = new Map<string, { name: string; lights: number }>();
  for (const v of views) {
    const g = v[which];
    if (g === null) continue;
    const entry = found.get(g.id) ?? { name: g.name, lights: 0 };
    entry.lights++;
    found.set(g.id, entry);
  }
  return [...found.entries()]
    .map(([id, g]) => ({ selector: byName(which, g.name, which === 'group' ? 'group_id' : 'location_id', id), label: g.name || id, lights: g.lights }))
    .sort(collate);
}

/** `partsOf(serial)`: the names of a light's parts (LightService.parts). */
export function selectorList(views: readonly LightView[], health: Health, partsOf: (serial: string) => readonly string[] = () => []): SelectorList {
  return {
    health: { state: health.state, lights: health.lights, online: health.online, offline: health.offline },
    lights: views
      .map((v) => {
        const selector = byName('label', v.label, 'id', v.serial);
        const label = v.label || v.serial;
        return {
          selector,
          label,
          parts: partsOf(v.serial).map((part) => ({ selector: `${selector}|${part}`, label: `${label} · ${part}` })),
          online: v.online,
          group: v.group?.name ?? null,
          location: v.location?.name ?? null,
        };
      })
      .sort(collate),
    groups: groupsOf(views, 'group'),
    locations: groupsOf(views, 'location'),
  };
}
