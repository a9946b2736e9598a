// One-shot timers a face owns and clears all at once when Homebridge shuts down, so none fires into a stopped service.

export class Timers {
  private readonly pending = new Set<ReturnType<typeof setTimeout>>();

  /** Runs `fn` after `ms`, unless clear() comes first. */
  after(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      fn();
    }, ms);
    this.pending.add(timer);
  }

  /** Cancels every timer not yet fired. */
  clear(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}
