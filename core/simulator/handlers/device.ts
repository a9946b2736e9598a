// Device namespace (2-59): every product answers these.

import { HOST_FIRMWARE_BUILD_NS } from '../model.js';
import { after, asSent, before, rawField, reply, type HandlerContext, type HandlerTable, type Reply } from './types.js';

const msToNs = (ms: number): bigint => BigInt(Math.round(ms)) * 1_000_000n;

const power = (ctx: HandlerContext): Reply => reply('StatePower', { level: ctx.model.power.at(ctx.nowMs) });
const label = (ctx: HandlerContext): Reply => reply('StateLabel', { label: ctx.model.label }, asSent('label', ctx.model.labelBytes));
const group = (ctx: HandlerContext): Reply => {
  const g = ctx.model.group;
  return reply('StateGroup', { group: g.id, label: g.label, updatedAtNs: g.updatedAtNs }, asSent('label', ctx.model.groupLabelBytes));
};
const location = (ctx: HandlerContext): Reply => {
  const l = ctx.model.location;
  return reply(
    'StateLocation',
    { location: l.id, label: l.label, updatedAtNs: l.updatedAtNs },
    asSent('label', ctx.model.locationLabelBytes),
  );
};

export const DEVICE_HANDLERS: HandlerTable = {
  // One StateService per device, UDP only.
  GetService: { family: 'device', run: (ctx) => [reply('StateService', { service: 1, port: ctx.port })] },
  GetHostFirmware: {
    family: 'device',
    run: ({ model }) => [
      reply('StateHostFirmware', {
        buildNs: HOST_FIRMWARE_BUILD_NS,
        versionMinor: model.firmware.minor,
        versionMajor: model.firmware.major,
      }),
    ],
  },
  // Current products have no separate Wi-Fi chip: zeros, as they report.
  GetWifiFirmware: {
    family: 'device',
    run: () => [reply('StateWifiFirmware', { buildNs: 0n, versionMinor: 0, versionMajor: 0 })],
  },
  GetWifiInfo: { family: 'device', run: ({ model }) => [reply('StateWifiInfo', { signal: model.wifiSignal })] },
  GetPower: { family: 'device', run: (ctx) => [power(ctx)] },
  SetPower: {
    family: 'device',
    run: (ctx, p) => before(ctx, () => [power(ctx)], () => ctx.model.setPower(p.level, ctx.nowMs, 0)),
  },
  GetLabel: { family: 'device', run: (ctx) => [label(ctx)] },
  SetLabel: {
    family: 'device',
    run: (ctx, p) =>
      after(ctx, () => [label(ctx)], () => {
        ctx.model.label = p.label;
        ctx.model.labelBytes = rawField(ctx, 'SetLabel', 'label');
      }),
  },
  GetVersion: {
    family: 'device',
    run: ({ model }) => [reply('StateVersion', { vendor: model.product.vendorId, product: model.product.productId })],
  },
  GetInfo: {
    family: 'device',
    run: ({ model, nowMs }) => [
      reply('StateInfo', { timeNs: msToNs(nowMs), uptimeNs: msToNs(Math.max(0, nowMs - model.bootMs)), downtimeNs: 0n }),
    ],
  },
  // Rebooting restarts the uptime; there is no State for it.
  SetReboot: { family: 'device', run: (ctx) => { ctx.model.bootMs = ctx.nowMs; return []; } },
  GetLocation: { family: 'device', run: (ctx) => [location(ctx)] },
  // Stored verbatim, updated_at included (apps pick the label with the newest updated_at).
  SetLocation: {
    family: 'device',
    run: (ctx, p) =>
      after(ctx, () => [location(ctx)], () => {
        ctx.model.location = { id: p.location, label: p.label, updatedAtNs: p.updatedAtNs };
        ctx.model.locationLabelBytes = rawField(ctx, 'SetLocation', 'label');
      }),
  },
  GetGroup: { family: 'device', run: (ctx) => [group(ctx)] },
  SetGroup: {
    family: 'device',
    run: (ctx, p) =>
      after(ctx, () => [group(ctx)], () => {
        ctx.model.group = { id: p.group, label: p.label, updatedAtNs: p.updatedAtNs };
        ctx.model.groupLabelBytes = rawField(ctx, 'SetGroup', 'label');
      }),
  },
  EchoRequest: { family: 'device', run: (_ctx, p) => [reply('EchoResponse', { echoing: p.echoing })] },
};
