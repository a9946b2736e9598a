// The button configuration of a device with buttons (the LIFX Switch, Dimmer Switch, Luna, Mirror), decoded for
// reading: each button's actions (StateButton: gesture and target, https://lan.developer.lifx.com/docs/the-lifx-switch)
// with the target's 16 bytes read as the layout its target type chooses (BUTTON_TARGETS, protocol.yml's ButtonTarget
// union), and the haptic and backlight settings (StateButtonConfig).

import { BUTTON_TARGETS, ENUMS, enumName, hsbkFromWire, type Hsbk, type Payload } from '../protocol/index.js';

/** A target's fields: a serial or a location, group or scene id (hex), relay indexes, kelvin steps. */
export type ButtonTarget = Readonly<Record<string, string | number | readonly number[]>>;

export interface ButtonAction {
  /** PRESS, HOLD, PRESS_PRESS, …; a gesture our tables do not name, by its number. */
  readonly gesture: string;
  /** POWER_TOGGLE_DEVICE, SCENE, …; a target type our tables do not name, by its number. */
  readonly targetType: string;
  /** The decoded target; null when the target type carries none (or is unknown: then `raw` holds its bytes). */
  readonly target: ButtonTarget | null;
}

export interface ButtonInfo {
  readonly actions: readonly ButtonAction[];
}

export interface ButtonSettings {
  readonly hapticDurationMs: number;
  readonly backlightOnColor: Hsbk;
  readonly backlightOffColor: Hsbk;
}

export interface ButtonsFact {
  readonly buttons: readonly ButtonInfo[];
  /** StateButtonConfig; null when it did not answer. */
  readonly config: ButtonSettings | null;
}

function targetOf(targetType: number, bytes: Uint8Array): ButtonTarget | null {
  const layout = (BUTTON_TARGETS as Readonly<Record<number, (typeof BUTTON_TARGETS)[keyof typeof BUTTON_TARGETS]>>)[targetType];
  if (layout === undefined) return { raw: Buffer.from(bytes).toString('hex') };
  const value = layout.read(Buffer.from(bytes), 0) as Record<string, string | number | number[]>;
  if (Object.keys(value).length === 0) return null;
  // Relay lists hold relaysCount indexes; the rest of the array is padding.
  if (Array.isArray(value.relays) && typeof value.relaysCount === 'number') {
    const { relaysCount, relays, ...rest } = value;
    return Object.freeze({ ...rest, relays: Object.freeze(relays.slice(0, relaysCount)) });
  }
  return Object.freeze(value);
}

/** The buttons of one StateButton (its buttonsCount, each with its actionsCount actions) and the config, decoded. */
export function buttonsFromReplies(state: Payload<'StateButton'>, config: Payload<'StateButtonConfig'> | undefined): ButtonsFact {
  const buttons = state.buttons.slice(0, state.buttonsCount).map((b) =>
    Object.freeze({
      actions: Object.freeze(
        b.actions.slice(0, b.actionsCount).map((a) =>
          Object.freeze({
            gesture: enumName(ENUMS.ButtonGesture, a.gesture),
            targetType: enumName(ENUMS.ButtonTargetType, a.targetType),
            target: targetOf(a.targetType, a.target),
          }),
        ),
      ),
    }),
  );
  const settings =
    config === undefined
      ? null
      : Object.freeze({
          hapticDurationMs: config.hapticDurationMs,
          backlightOnColor: hsbkFromWire(config.backlightOnColor),
          backlightOffColor: hsbkFromWire(config.backlightOffColor),
        });
  return Object.freeze({ buttons: Object.freeze(buttons), config: settings });
}
