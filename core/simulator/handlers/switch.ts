// LIFX Switch: relays (816-818) and buttons (905-911).

import { POWER_OFF_LEVEL, POWER_ON_LEVEL } from '../../protocol/units.js';
import { before, reply, type HandlerContext, type HandlerTable, type Reply } from './types.js';

const relay = ({ model }: HandlerContext, index: number): Reply[] => {
  const level = model.relays[index];
  // An index past the last relay is not answered.
  return level === undefined ? [] : [reply('StateRPower', { relayIndex: index, level })];
};

const buttons = ({ model }: HandlerContext): Reply =>
  reply('StateButton', { count: model.buttons.length, index: 0, buttonsCount: Math.min(8, model.buttons.length), buttons: model.buttons.slice(0, 8) });

const buttonConfig = ({ model }: HandlerContext): Reply => reply('StateButtonConfig', { ...model.buttonConfig });

export const SWITCH_HANDLERS: HandlerTable = {
  GetRPower: { family: 'relays', run: (ctx, p) => relay(ctx, p.relayIndex) },
  SetRPower: {
    family: 'relays',
    run: (ctx, p) =>
      before(ctx, () => relay(ctx, p.relayIndex), () => {
        if (p.relayIndex < ctx.model.relays.length) ctx.model.relays[p.relayIndex] = p.level === 0 ? POWER_OFF_LEVEL : POWER_ON_LEVEL;
      }),
  },
  GetButton: { family: 'buttons', run: (ctx) => [buttons(ctx)] },
  SetButton: {
    family: 'buttons',
    run: (ctx, p) =>
      before(ctx, () => [buttons(ctx)], () => {
        for (let k = 0; k < p.buttonsCount && k < p.buttons.length; k++) {
          if (p.index + k < ctx.model.buttons.length) ctx.model.buttons[p.index + k] = p.buttons[k]!;
        }
      }),
  },
  GetButtonConfig: { family: 'buttons', run: (ctx) => [buttonConfig(ctx)] },
  SetButtonConfig: {
    family: 'buttons',
    run: (ctx, p) => before(ctx, () => [buttonConfig(ctx)], () => { ctx.model.buttonConfig = p; }),
  },
};
