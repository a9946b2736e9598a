// CapabilityProber: one job, finding out what a product the registry does not know can do by asking a device of it.
// The vendor adds products every few months (https://lan.developer.lifx.com/docs/product-registry); a light answers
// the messages of what it supports and stays silent on the rest, and the Switch answers StateUnhandled
// (https://lan.developer.lifx.com/docs/the-lifx-switch), so each probe is one transmission, briefly awaited.

import { LightwireError } from '../errors.js';
import { capabilitiesFromFeatures, type FeatureSet, type MessageName, type Payload, type Product } from '../protocol/index.js';
import type { DeviceAddress, Requester, ReplyOf } from '../transport/requester.js';

/**
 * How long a capability probe waits for its one transmission (GetOptions.once): a light answers what it supports
 * within a round trip and never answers the rest (only the Switch says StateUnhandled), so a probe's silence is the
 * answer, and it must not hold a light's first read for a whole read timeout.
 */
export const CAPABILITY_PROBE_TIMEOUT_MS = 1000;
/** Distinct (vendor, product, firmware) models probed; a fleet has a handful, a bad device cannot grow it forever. */
export const PRODUCT_CACHE_LIMIT = 256;
/**
 * How many answered probes settle a model. One transmission lost makes a capability look missing; later reads of
 * the facts of lights of that model probe again (up to this many times in all) and keep every capability any of them
 * answered for, so a lost packet costs a capability for one info refresh interval, not until the host restarts.
 */
export const PROBE_ROUNDS = 3;

/** What a model's probes found so far (one per vendor, product and firmware, never one per light). */
interface ModelProbe {
  /** The probe in flight, if one is. */
  asking: Promise<void> | undefined;
  /** Every capability any probe found, once one answered. */
  features: FeatureSet | undefined;
  product: Product | undefined;
  /** Probes that answered. */
  rounds: number;
}

/** What the prober needs of its client. */
export interface ProbeHost {
  /** Throws CLIENT_STOPPED while the client is stopped. */
  readonly requester: Requester;
}

type ProbeName = MessageName & Parameters<Requester['get']>[1];

/** Every feature either set has (a device's kind, colour and kelvin range are the first answer's). */
function union(a: FeatureSet, b: FeatureSet): FeatureSet {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) if (v === true) out[k] = true;
  return out as FeatureSet;
}

/** One key per vendor, product and firmware: the registry's own resolution. */
function modelKey(product: Product): string {
  const fw = product.firmware;
  return `${product.vendorId}:${product.productId}@${fw ? `${fw.major}.${fw.minor}` : '-'}`;
}

export class CapabilityProber {
  private readonly models = new Map<string, ModelProbe>();

  /**
   * @param notLights where a device found to be no light is noted (the state reader reads it as a device)
   * @param report where a failure that is no coded error goes (the client's `error` event)
   */
  constructor(
    private readonly host: ProbeHost,
    private readonly notLights: Set<string>,
    private readonly report: (err: Error) => void,
  ) {}

  /**
   * What `product` (not known to the registry) can do, asked of `device`: GetColor tells a light (LightState) from a
   * device that is none (StateUnhandled); then lights are asked GetExtendedColorZones (extended multizone),
   * GetColorZones (legacy zones), GetDeviceChain (matrix; a chain when it reports more than one tile), GetHevCycle and
   * GetInfrared, and other devices GetRPower and GetButton. An answer means supported; StateUnhandled or silence to
   * one transmission within CAPABILITY_PROBE_TIMEOUT_MS means not. Colour and kelvin range cannot be asked: a light
   * keeps the plain colour light's (1500-9000 K). No answer to GetColor at all: `product` as it is, asked again at
   * the next read of the light's facts.
   */
  async probe(serial: string, device: DeviceAddress, product: Product, timeoutMs: number): Promise<Product> {
    const key = modelKey(product);
    let model = this.models.get(key);
    if (model === undefined) {
      model = { asking: undefined, features: undefined, product: undefined, rounds: 0 };
      // Past the limit a model is probed for this read only, and not remembered.
      if (this.models.size < PRODUCT_CACHE_LIMIT) this.models.set(key, model);
    }
    if (model.asking === undefined && model.rounds < PROBE_ROUNDS) model.asking = this.ask(model, device, product, timeoutMs);
    if (model.asking !== undefined) await model.asking;
    const probed = model.product;
    if (probed === undefined) return product;
    if (!probed.capabilities.isLight) this.notLights.add(serial);
    return probed;
  }

  /** What earlier probes of `product`'s model found (without asking anything), or `product` when none answered yet. */
  known(product: Product): Product {
    return this.models.get(modelKey(product))?.product ?? product;
  }

  /** One probe of a model: what it found joins what earlier probes did. */
  private async ask(model: ModelProbe, device: DeviceAddress, product: Product, timeoutMs: number): Promise<void> {
    try {
      const features = await this.askFeatures(device, timeoutMs);
      if (features === undefined) return;
      model.rounds++;
      const joined = model.features === undefined ? features : union(model.features, features);
      const grew = model.features === undefined || Object.entries(joined).some(([k, v]) => model.features![k as keyof FeatureSet] !== v);
      if (grew) {
        model.features = joined;
        model.product = Object.freeze({ ...product, capabilities: capabilitiesFromFeatures(joined) });
      }
    } finally {
      model.asking = undefined;
    }
  }

  /** One probe's answer, or undefined when the device did not answer GetColor at all (it tells nothing then). */
  private async askFeatures(device: DeviceAddress, timeoutMs: number): Promise<FeatureSet | undefined> {
    // GetColor is asked as any read (does the device answer at all); the rest once, briefly.
    const probeMs = Math.min(timeoutMs, CAPABILITY_PROBE_TIMEOUT_MS);
    let color: ReplyOf<'GetColor'> | undefined;
    try {
      color = await this.host.requester.get(device, 'GetColor', {}, { timeoutMs });
    } catch (err) {
      if (err instanceof LightwireError && err.code === 'REQUEST_TIMED_OUT') return undefined;
      if (!(err instanceof LightwireError)) this.report(err as Error);
    }
    if (color === undefined) {
      const [relay, buttons] = await Promise.all([this.once(device, 'GetRPower', { relayIndex: 0 }, probeMs), this.once(device, 'GetButton', {}, probeMs)]);
      return { color: false, temperature_range: null, relays: relay !== undefined, buttons: buttons !== undefined };
    }
    const [extended, zones, chain, hev, infrared] = await Promise.all([
      this.once(device, 'GetExtendedColorZones', {}, probeMs),
      this.once(device, 'GetColorZones', { startIndex: 0, endIndex: 0 }, probeMs),
      this.once(device, 'GetDeviceChain', {}, probeMs),
      this.once(device, 'GetHevCycle', {}, probeMs),
      this.once(device, 'GetInfrared', {}, probeMs),
    ]);
    const tiles = chain?.payload.tileDevicesCount ?? 0;
    return {
      extended_multizone: extended !== undefined,
      multizone: extended !== undefined || zones !== undefined,
      matrix: tiles > 0,
      chain: tiles > 1,
      hev: hev !== undefined,
      infrared: infrared !== undefined,
    };
  }

  /** One transmission of a probe: its reply, or undefined for silence or StateUnhandled. */
  private once<N extends ProbeName>(device: DeviceAddress, name: N, payload: Payload<N>, timeoutMs: number): Promise<ReplyOf<N> | undefined> {
    return this.host.requester.get(device, name, payload, { timeoutMs, once: true }).catch((err: unknown) => {
      if (!(err instanceof LightwireError)) this.report(err as Error);
      return undefined;
    });
  }
}
