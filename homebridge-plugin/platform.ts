// The Lightwire dynamic platform: checks the config, restores cached accessories, starts the light service on
// didFinishLaunching, registers one accessory per light as the service announces it, follows changes, removes
// lights not seen for the grace period, and stops everything on shutdown. Homebridge never waits on the LAN:
// reads come from the service's cache and writes answer within the response timeout.

import type { API, DynamicPlatformPlugin, Logging, MatterAccessory, PlatformAccessory, PlatformConfig } from 'homebridge';
import { LightService, type LightResult, type LightServiceOptions, type LightView } from '../core/index.js';
import type { RunningServer, ServerOptions } from '../core/http/index.js';
import { LightAccessory, contextOf, isLightContext, sameContext, lightContextProblem, offered, relayCountOf, type LightContext } from './accessory.js';
import { BackgroundErrors } from './background-errors.js';
import { bounded } from './bounded.js';
import { lightSettings, parseConfig, serviceOptions, type LightwireConfig } from './config.js';
import { startHttpApi } from './http-api.js';
import { MatterFace, matterProblem, removeMatterLeftovers } from './matter.js';
import { lightName } from './names.js';
import { SceneSwitches, isScenesContext } from './scenes.js';
import { LIGHT_UUID_SEED, PLATFORM_NAME, PLUGIN_NAME, SCENES_UUID_SEED } from './settings.js';
import { Writer } from './writer.js';
import { Timers } from './timers.js';
import { answerUnavailable, clearUnavailable } from './unavailable.js';

export { ERROR_LOG_INTERVAL_MS } from './background-errors.js';

/** A failed start (no usable network yet, say) is tried again this much later. */
export const START_RETRY_MS = 30_000;
/** Stale lights are looked for this often at most (and at least once per grace period). */
export const STALE_CHECK_MAX_MS = 3_600_000;

export interface PlatformDeps {
  /** Builds the light service (tests give one over virtual lights). */
  readonly createService?: (options: LightServiceOptions) => LightService;
  /** Starts the HTTP API (default: `startServer` from homebridge-lightwire/http, loaded only when enabled). */
  readonly startHttp?: (options: ServerOptions) => Promise<RunningServer>;
  readonly now?: () => number;
  /** How long after a failed start the next try comes (default START_RETRY_MS). */
  readonly startRetryMs?: number;
}

export class LightwirePlatform implements DynamicPlatformPlugin {
  /** Every accessory of this platform, restored or registered, by UUID. */
  readonly accessories = new Map<string, PlatformAccessory>();
  /** Light accessories by serial. */
  readonly lights = new Map<string, LightAccessory>();
  readonly config: LightwireConfig | undefined;
  readonly service: LightService | undefined;
  private readonly writer: Writer | undefined;
  private readonly notOffered = new Set<string>();
  /** UUIDs of restored accessories whose cache entry could not be used: rebuilt when their light is found. */
  private readonly unusable = new Set<string>();
  /** Lights removed as stale (removeAfterHours): registered again once they are heard from. */
  private readonly removedAsStale = new Set<string>();
  private scenes: SceneSwitches | undefined;
  /** The Matter face (option `matter`), when Matter is on for this bridge. */
  private matter: MatterFace | undefined;
  /** Matter accessories restored while the `matter` option is off: removed at launch. */
  private readonly matterLeftovers: MatterAccessory[] = [];
  private http: RunningServer | undefined;
  private readonly timers = new Timers();
  private staleInterval: ReturnType<typeof setInterval> | undefined;
  private readonly now: () => number;
  private readonly errors: BackgroundErrors;
  private launchedAt = 0;
  private stopped = false;

  constructor(
    readonly log: Logging,
    rawConfig: PlatformConfig | undefined,
    readonly api: API,
    private readonly deps: PlatformDeps = {},
  ) {
    this.now = deps.now ?? Date.now;
    this.errors = new BackgroundErrors(log, this.now);
    if (rawConfig === undefined || rawConfig === null) {
      log.info('Lightwire is installed but not configured: nothing is started.');
      return;
    }
    const result = parseConfig(rawConfig);
    for (const warning of result.warnings) log.warn(`Config: ${warning.message}`);
    if (!result.ok) {
      // The code every face gives a bad option (OPTIONS_INVALID), then where and why.
      for (const error of result.errors) log.error(`Config: OPTIONS_INVALID: ${error.message}`);
      log.error(`Lightwire is not started: fix the ${result.errors.length === 1 ? 'setting' : `${result.errors.length} settings`} above. Homebridge keeps running.`);
      return;
    }
    this.config = result.config;
    const options = serviceOptions(this.config, api.user.storagePath());
    try {
      this.service = (deps.createService ?? ((o) => new LightService(o)))(options);
    } catch (err) {
      this.config = undefined;
      log.error(`Lightwire is not started: ${(err as Error).message}. Homebridge keeps running.`);
      return;
    }
    const lights = this.config.lights;
    this.writer = new Writer(this.service, {
      mergeWindowMs: lights.mergeWindowMs,
      responseTimeoutMs: lights.responseTimeoutMs,
      durationS: (serial) => lightSettings(this.config!, serial).transitionS,
      failure: () => this.failure(),
      onLate: (serial, outcome) => this.log.debug(`${this.nameOf(serial)}: change not confirmed (${outcome})`),
    });
    if (this.config.matter) {
      const problem = matterProblem(api);
      if (problem !== undefined) log.warn(problem);
      else this.matter = new MatterFace({ api, matter: api.matter!, log, config: this.config, writer: this.writer, bounded: (s, w) => this.bounded(s, w), now: this.now });
    }
    api.on('didFinishLaunching', () => void this.launch().catch((err: unknown) => this.log.error(`Lightwire stopped working: ${(err as Error).message}`)));
    api.on('shutdown', () => void this.shutdown());
  }

  /** Homebridge restores an accessory from its cache (before didFinishLaunching). */
  configureAccessory(accessory: PlatformAccessory): void {
    this.accessories.set(accessory.UUID, accessory);
    if (this.service === undefined) {
      answerUnavailable(accessory, this.api.hap, () => this.failure());
      return;
    }
    if (accessory.UUID === this.api.hap.uuid.generate(SCENES_UUID_SEED)) {
      // The scene switches are bound by syncScenes once the scene store is open; the context only marks them.
      if (!isScenesContext(accessory.context)) accessory.context = { kind: 'scenes' };
      return;
    }
    // Homebridge calls this outside any try/catch: a throw here stops Homebridge. So the cached context is checked
    // field by field first, and anything restoring it still throws is caught and treated the same way.
    let problem = lightContextProblem(accessory.context);
    if (problem === undefined) {
      let light: LightAccessory | undefined;
      try {
        // Handlers now, from the cached capabilities: HomeKit may ask before the light is found.
        light = this.handlerFor(accessory);
        light.setup(undefined);
        light.rename(undefined);
        return;
      } catch (err) {
        if (light !== undefined) this.discard(light);
        problem = `its cached services cannot be restored (${err instanceof Error ? err.message : String(err)})`;
      }
    }
    this.unusableCache(accessory, problem);
  }

  /** Homebridge restores a Matter accessory from its cache (before didFinishLaunching). */
  configureMatterAccessory(accessory: MatterAccessory): void {
    if (this.matter !== undefined) this.matter.configure(accessory);
    else this.matterLeftovers.push(accessory);
  }

  /** Starts the service; registers lights as they are announced. Called on didFinishLaunching. */
  async launch(): Promise<void> {
    const service = this.service;
    const config = this.config;
    if (service === undefined || config === undefined || this.stopped) return;
    this.launchedAt = this.now();
    if (!service.listenerCount('added')) this.listen(service);
    this.matter?.start(service);
    if (this.matter === undefined && this.api.matter !== undefined) removeMatterLeftovers(this.api.matter, this.log, this.matterLeftovers.splice(0));
    try {
      await service.start();
    } catch (err) {
      // Shut down while starting: no retry timer (shutdown() already cleared the timers it knew of).
      if (this.stopped) return;
      const retryMs = this.deps.startRetryMs ?? START_RETRY_MS;
      this.log.error(`Cannot start the LAN client (${(err as Error).message}); trying again in ${retryMs / 1000} s.`);
      this.timers.after(retryMs, () => void this.launch().catch((e: unknown) => this.log.error(`Lightwire stopped working: ${(e as Error).message}`)));
      return;
    }
    // Shut down while the service was starting: shutdown() has already cleared the intervals, so setting one now
    // would leave it running for good (and service.stop() has already been asked for).
    if (this.stopped) return;
    for (const view of service.views()) if (this.lights.has(view.serial) || view.power !== null) this.ensureLight(view);
    if (config.http.enabled) await this.startHttp(config);
    await service.ready;
    if (this.stopped) return;
    this.log.info(`${service.views().length} light(s) found; ${this.lights.size} in HomeKit.`);
    this.syncScenes();
    this.removeStale();
    const graceMs = config.discovery.removeAfterHours * 3_600_000;
    if (graceMs > 0) {
      this.staleInterval = setInterval(() => this.removeStale(), Math.min(STALE_CHECK_MAX_MS, graceMs));
      this.staleInterval.unref?.();
    }
  }

  /** Stops the service and the HTTP API, answers pending writes, clears every timer. Called on shutdown. */
  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.timers.clear();
    if (this.staleInterval !== undefined) clearInterval(this.staleInterval);
    this.staleInterval = undefined;
    this.matter?.stop();
    this.writer?.stop();
    for (const light of this.lights.values()) light.dispose();
    this.scenes?.dispose();
    const http = this.http;
    this.http = undefined;
    await Promise.allSettled([http?.close(), this.service?.stop()]);
  }

  // ---- lights ----

  private listen(service: LightService): void {
    service.on('added', (view) => this.ensureLight(view));
    service.on('changed', (view, fields) => this.changed(view, fields));
    service.on('offline', (view) => {
      this.log.warn(`${view.label || view.serial} is unreachable${this.config?.lights.unreachableAsOff ? ' (shown as Off)' : ' ("No Response" in HomeKit)'}.`);
      this.lights.get(view.serial)?.update(view, ['offline']);
    });
    service.on('online', (view) => {
      this.log.info(`${view.label || view.serial} is reachable again.`);
      const light = this.lights.get(view.serial);
      // A light removed as stale (removeAfterHours) while it was away is registered again.
      if (light === undefined) {
        this.removedAsStale.delete(view.serial);
        this.ensureLight(view);
      } else light.update(view, ['online']);
    });
    service.on('scenes', () => this.scenesChanged());
    service.on('error', (err) => this.errors.report(err));
  }

  private changed(view: LightView, fields: readonly string[]): void {
    const light = this.lights.get(view.serial);
    if (light === undefined) {
      // Heard again after it was removed as stale (without going offline in between): registered again.
      if (view.online && this.removedAsStale.delete(view.serial)) this.ensureLight(view);
      return;
    }
    // A LIFX Switch whose relay count is now known (or changed) gets its switches rebuilt; their states follow below.
    if (fields.includes('relays') && !fields.includes('product') && relayCountOf(view) !== undefined && relayCountOf(view) !== light.relayCount) {
      light.setup(view);
      this.saveContext(light, view);
    }
    if (fields.includes('product')) {
      light.setup(view);
      // A light named after its product (nothing of its label is usable) follows the product now known.
      if (!fields.includes('label')) light.rename(view);
      this.saveContext(light, view);
    }
    if (fields.includes('label') && light.rename(view)) {
      this.log.info(`${view.serial} is now called ${view.label}${this.inHomeKit(view.label, light.accessory.displayName)}.`);
      this.saveContext(light, view);
    }
    light.update(view, fields);
  }

  /** Registers a light, or binds a restored accessory to it. */
  private ensureLight(view: LightView): void {
    const config = this.config;
    if (config === undefined || this.stopped) return;
    const uuid = this.api.hap.uuid.generate(LIGHT_UUID_SEED + view.serial);
    const existing = this.accessories.get(uuid);
    if (lightSettings(config, view.serial).hidden) {
      if (existing !== undefined) this.remove(existing, 'hidden in the config');
      return;
    }
    if (!offered(view.capabilities)) {
      if (existing !== undefined) this.remove(existing, 'nothing HomeKit can control');
      if (!this.notOffered.has(view.serial)) {
        this.notOffered.add(view.serial);
        this.log.info(`${view.label || view.serial} (${view.product?.name ?? 'unknown product'}) is not offered to HomeKit: it is neither a light nor a switch.`);
      }
      return;
    }
    if (existing !== undefined) {
      if (this.unusable.has(uuid) || !isLightContext(existing.context)) {
        this.rebuild(existing, view);
        return;
      }
      const light = this.handlerFor(existing);
      light.setup(view);
      light.rename(view);
      this.saveContext(light, view);
      return;
    }
    const category = view.capabilities.isLight ? this.api.hap.Categories.LIGHTBULB : this.api.hap.Categories.SWITCH;
    const name = lightName(view.label, view.serial, view.product?.name, view.capabilities.isLight);
    const accessory = new this.api.platformAccessory(name, uuid, category);
    accessory.context = contextOf(view);
    this.accessories.set(uuid, accessory);
    this.handlerFor(accessory).setup(view);
    this.api.registerPlatformAccessories(PLUGIN_NAME, PLATFORM_NAME, [accessory]);
    this.log.info(`Added ${view.label || view.serial}${this.inHomeKit(view.label, name)} (${view.product?.name ?? 'unknown product'}, ${view.serial}).`);
  }

  /**
   * Rebuilds, from the light itself, an accessory restored from a cache entry that was not usable
   * (configureAccessory): in place, so it keeps its room and automations in Home. Should the rebuild fail, the
   * accessory goes on answering "No Response" (never stale cached values) and stays marked unusable: the light's
   * next announcement tries again, and removeStale removes it like any unseen light.
   */
  private rebuild(accessory: PlatformAccessory, view: LightView): void {
    const cached: unknown = accessory.context;
    let light: LightAccessory | undefined;
    try {
      // Undone first: the rebuild binds its own handlers, and characteristics it does not bind (Adaptive Lighting's
      // transition count, say) must not keep answering "No Response".
      clearUnavailable(accessory, this.api.hap);
      accessory.context = contextOf(view);
      light = this.handlerFor(accessory);
      light.setup(view);
      light.rename(view);
    } catch (err) {
      if (light !== undefined) this.discard(light);
      accessory.context = cached as PlatformAccessory['context'];
      this.unusable.add(accessory.UUID);
      answerUnavailable(accessory, this.api.hap, () => this.failure());
      this.log.error(
        `Cannot rebuild "${accessory.displayName}" from the light (${view.serial}): ${err instanceof Error ? err.message : String(err)}. ` +
          'It answers "No Response" until it is rebuilt (when its light comes back online, or at the next start).',
      );
      return;
    }
    this.unusable.delete(accessory.UUID);
    this.api.updatePlatformAccessories([accessory]);
    this.log.info(`Rebuilt ${view.label || view.serial}${this.inHomeKit(view.label, accessory.displayName)} from the light (${view.serial}): its cached data was not usable.`);
  }

  /**
   * Drops a light handler whose setup failed. Its cleanup (HAP's removeController) may throw too; that must not
   * escape configureAccessory (which Homebridge calls unguarded) or the rebuild, so it is only logged.
   */
  private discard(light: LightAccessory): void {
    try {
      light.dispose();
    } catch (err) {
      this.log.debug(`${light.serial}: cleanup after a failed setup failed too (${err instanceof Error ? err.message : String(err)})`);
    }
    if (this.lights.get(light.serial) === light) this.lights.delete(light.serial);
  }

  /** For a log line: the name HomeKit got, when it differs from the light's own label. */
  private inHomeKit(label: string, name: string): string {
    return label === name ? '' : ` (as "${name}" in HomeKit)`;
  }

  /**
   * A restored accessory whose cached context cannot be used: it stays (same UUID, so Home keeps its room and
   * automations) but answers "No Response" until its light is found and rebuilds it (ensureLight), and it is removed
   * like any unseen light after removeAfterHours.
   */
  private unusableCache(accessory: PlatformAccessory, problem: string): void {
    this.unusable.add(accessory.UUID);
    answerUnavailable(accessory, this.api.hap, () => this.failure());
    const hours = this.config?.discovery.removeAfterHours ?? 0;
    this.log.warn(
      `Cached accessory "${accessory.displayName}" cannot be restored: ${problem} (Homebridge's accessory cache). ` +
        `It answers "No Response" until its light is found, then it is rebuilt${hours > 0 ? `; not found within ${hours} h, it is removed` : ''}.`,
    );
  }

  private handlerFor(accessory: PlatformAccessory): LightAccessory {
    const serial = (accessory.context as LightContext).serial;
    let light = this.lights.get(serial);
    if (light === undefined || light.accessory !== accessory) {
      light = new LightAccessory(
        {
          hap: this.api.hap,
          log: this.log,
          lights: this.service!,
          writer: this.writer!,
          config: this.config!,
          settings: lightSettings(this.config!, serial),
          bounded: (s, work) => this.bounded(s, work),
          failure: () => this.failure(),
        },
        accessory,
      );
      this.lights.set(serial, light);
    }
    return light;
  }

  /** Keeps what a restored accessory needs in Homebridge's cache; saved only when it changed. */
  private saveContext(light: LightAccessory, view: LightView): void {
    const before = light.context;
    const next = contextOf(view, light.relayCount || before.relayCount, before.productName);
    if (sameContext(before, next)) return;
    light.accessory.context = next;
    this.api.updatePlatformAccessories([light.accessory]);
  }

  /** Removes lights not heard from for the grace period (restored accessories count from their cached sighting). */
  removeStale(): void {
    const config = this.config;
    if (config === undefined || this.service === undefined || this.stopped) return;
    const graceMs = config.discovery.removeAfterHours * 3_600_000;
    if (graceMs <= 0) return;
    const now = this.now();
    const refreshed: PlatformAccessory[] = [];
    const scenesUuid = this.api.hap.uuid.generate(SCENES_UUID_SEED);
    for (const accessory of [...this.accessories.values()]) {
      if (accessory.UUID === scenesUuid) continue;
      if (this.unusable.has(accessory.UUID) || !isLightContext(accessory.context)) {
        // An unusable cache entry no light has claimed (ensureLight rebuilds those it finds): seen last at launch.
        if (now - this.launchedAt > graceMs) this.remove(accessory, `its cached data was not usable and its light was not found for ${Math.floor((now - this.launchedAt) / 3_600_000)} h`);
        continue;
      }
      const context = accessory.context;
      const view = this.service.light(context.serial);
      const lastSeenAt = view?.lastSeenAt ?? context.lastSeenAt ?? this.launchedAt;
      if (now - lastSeenAt > graceMs) {
        this.removedAsStale.add(context.serial);
        this.remove(accessory, `not seen for ${Math.floor((now - lastSeenAt) / 3_600_000)} h`);
      } else if (view !== undefined && view.lastSeenAt !== context.lastSeenAt) {
        accessory.context = { ...context, lastSeenAt: view.lastSeenAt };
        refreshed.push(accessory);
      }
    }
    if (refreshed.length > 0) this.api.updatePlatformAccessories(refreshed);
    this.matter?.removeStale(graceMs);
  }

  private remove(accessory: PlatformAccessory, why: string): void {
    this.accessories.delete(accessory.UUID);
    this.unusable.delete(accessory.UUID);
    if (isLightContext(accessory.context)) {
      this.lights.get(accessory.context.serial)?.dispose();
      this.lights.delete(accessory.context.serial);
    }
    this.api.unregisterPlatformAccessories(PLUGIN_NAME, PLATFORM_NAME, [accessory]);
    this.log.info(`Removed ${accessory.displayName}: ${why}.`);
  }

  // ---- scenes and HTTP ----

  private syncScenes(): void {
    const config = this.config;
    const service = this.service;
    if (config === undefined || service === undefined) return;
    const uuid = this.api.hap.uuid.generate(SCENES_UUID_SEED);
    const existing = this.accessories.get(uuid);
    if (!config.scenes.switches || config.scenes.file === undefined) {
      if (existing !== undefined) this.remove(existing, config.scenes.switches ? 'scene switches need a scenes.file' : 'scene switches are off in the config');
      return;
    }
    let accessory = existing;
    if (accessory === undefined) {
      accessory = new this.api.platformAccessory('Lightwire Scenes', uuid, this.api.hap.Categories.SWITCH);
      accessory.context = { kind: 'scenes' };
      this.accessories.set(uuid, accessory);
      this.api.registerPlatformAccessories(PLUGIN_NAME, PLATFORM_NAME, [accessory]);
    }
    this.scenes = new SceneSwitches({ hap: this.api.hap, lights: service, config, bounded: (key, work) => this.bounded(key, work) }, accessory);
    const count = this.scenes.sync();
    this.api.updatePlatformAccessories([accessory]);
    this.log.info(`${count} scene switch(es).`);
  }

  /**
   * The scene list changed (a scene captured, renamed or deleted over the HTTP API, or in another process that shares
   * the scene file): the switches follow it, without a restart.
   */
  private scenesChanged(): void {
    const scenes = this.scenes;
    if (scenes === undefined || this.stopped) return;
    const count = scenes.sync();
    this.api.updatePlatformAccessories([scenes.accessory]);
    this.log.info(`Scenes changed: ${count} scene switch(es).`);
  }

  private async startHttp(config: LightwireConfig): Promise<void> {
    this.http = await startHttpApi(config, this.service!, this.log, this.deps.startHttp);
    if (this.http !== undefined && this.stopped) {
      await this.http.close().catch((err: unknown) => this.log.error(`HTTP API not started: ${(err as Error).message}`));
      this.http = undefined;
    } else if (this.http !== undefined) this.log.info(`HTTP API listening at ${this.http.url}`);
  }

  // ---- answers to HomeKit ----

  /** HAP's "No Response". */
  failure(): Error {
    return new this.api.hap.HapStatusError(this.api.hap.HAPStatus.SERVICE_COMMUNICATION_FAILURE);
  }

  /**
   * Runs a service call for one light (or a scene) and answers HomeKit within the response timeout: resolves when
   * every light confirmed, rejects with "No Response" when one did not, failed, or was already unreachable.
   */
  bounded(key: string, work: () => Promise<LightResult[]>): Promise<void> {
    const view = this.service?.light(key);
    if (this.service === undefined || this.stopped || (!key.startsWith('scene:') && (view === undefined || !view.online))) {
      return Promise.reject(this.failure());
    }
    return bounded(work, this.config!.lights.responseTimeoutMs, () => this.failure(), (err) => this.log.debug(`${key}: ${err.message}`));
  }

  private nameOf(serial: string): string {
    return this.service?.light(serial)?.label || serial;
  }
}

