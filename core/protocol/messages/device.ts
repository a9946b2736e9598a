// Device namespace, types 2-59 and 223 (https://lan.developer.lifx.com/docs/information-messages).

import { message } from './message.js';
import { ENUMS, Firmware, Id16, Label, enumOf, f32, field, reserved, u16, u32, u64, u8, bytes } from './structs.js';

export const DEVICE = {
  // Every light answers, each with one StateService per service it runs: how many is not known in advance.
  GetService: message(2, [], { reply: 'StateService', multi: { until: 'gap', identity: ['service', 'port'] } }),
  StateService: message(3, [field('service', enumOf(u8, ENUMS.DeviceService)), field('port', u32)]),
  GetHostFirmware: message(14, [], { reply: 'StateHostFirmware' }),
  StateHostFirmware: message(15, Firmware.fields),
  GetWifiInfo: message(16, [], { reply: 'StateWifiInfo' }),
  // Only `signal` is public since protocol.yml v0.5 (2021); the rest is reserved.
  StateWifiInfo: message(17, [field('signal', f32), reserved(4), reserved(4), reserved(2)]),
  GetWifiFirmware: message(18, [], { reply: 'StateWifiFirmware' }),
  StateWifiFirmware: message(19, Firmware.fields),
  GetPower: message(20, [], { reply: 'StatePower' }),
  SetPower: message(21, [field('level', u16, 'power')], { reply: 'StatePower' }),
  StatePower: message(22, [field('level', u16, 'power')]),
  GetLabel: message(23, [], { reply: 'StateLabel' }),
  SetLabel: message(24, [field('label', Label)], { reply: 'StateLabel' }),
  StateLabel: message(25, [field('label', Label)]),
  GetVersion: message(32, [], { reply: 'StateVersion' }),
  StateVersion: message(33, [field('vendor', u32), field('product', u32), reserved(4)]),
  GetInfo: message(34, [], { reply: 'StateInfo' }),
  StateInfo: message(35, [field('timeNs', u64, 'epochNs'), field('uptimeNs', u64, 'ns'), field('downtimeNs', u64, 'ns')]),
  SetReboot: message(38, []),
  Acknowledgement: message(45, []),
  GetLocation: message(48, [], { reply: 'StateLocation' }),
  SetLocation: message(49, [field('location', Id16), field('label', Label), field('updatedAtNs', u64, 'epochNs')], {
    reply: 'StateLocation',
  }),
  StateLocation: message(50, [field('location', Id16), field('label', Label), field('updatedAtNs', u64, 'epochNs')]),
  GetGroup: message(51, [], { reply: 'StateGroup' }),
  SetGroup: message(52, [field('group', Id16), field('label', Label), field('updatedAtNs', u64, 'epochNs')], {
    reply: 'StateGroup',
  }),
  StateGroup: message(53, [field('group', Id16), field('label', Label), field('updatedAtNs', u64, 'epochNs')]),
  EchoRequest: message(58, [field('echoing', bytes(64))], { reply: 'EchoResponse' }),
  EchoResponse: message(59, [field('echoing', bytes(64))]),
  StateUnhandled: message(223, [field('unhandledType', u16)]),
} as const;
