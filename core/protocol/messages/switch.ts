// LIFX Switch: relays 816-818 and buttons 905-911 (https://lan.developer.lifx.com/docs/the-lifx-switch).

import { message } from './message.js';
import { Button, Hsbk, array, field, u16, u8 } from './structs.js';

export const SWITCH = {
  GetRPower: message(816, [field('relayIndex', u8)], { reply: 'StateRPower' }),
  SetRPower: message(817, [field('relayIndex', u8), field('level', u16, 'power')], { reply: 'StateRPower' }),
  StateRPower: message(818, [field('relayIndex', u8), field('level', u16, 'power')]),
  GetButton: message(905, [], { reply: 'StateButton' }),
  SetButton: message(906, [field('index', u8), field('buttonsCount', u8), field('buttons', array(Button, 8))], {
    reply: 'StateButton',
  }),
  StateButton: message(907, [
    field('count', u8),
    field('index', u8),
    field('buttonsCount', u8),
    field('buttons', array(Button, 8)),
  ]),
  GetButtonConfig: message(909, [], { reply: 'StateButtonConfig' }),
  SetButtonConfig: message(910, [
    field('hapticDurationMs', u16, 'ms'),
    field('backlightOnColor', Hsbk),
    field('backlightOffColor', Hsbk),
  ], { reply: 'StateButtonConfig' }),
  StateButtonConfig: message(911, [
    field('hapticDurationMs', u16, 'ms'),
    field('backlightOnColor', Hsbk),
    field('backlightOffColor', Hsbk),
  ]),
} as const;
