// ValueCache: one frozen copy of each value read, by key, so that what many lights report alike (their group, their
// location, their firmware, a matrix light's tiles) is held once per client, not once per light.

/** How many values a cache keeps (then it starts afresh): more groups, locations and firmware builds than a LAN has. */
export const VALUES_KEPT = 256;

export class ValueCache<T extends object> {
  private readonly values = new Map<string, T>();

  constructor(private readonly limit = VALUES_KEPT) {}

  /**
   * The copy held under `key`, or else `value`, frozen and held from now on. Frozen, a value can be shared by every
   * light that reports it: nobody can change one light's through another's.
   */
  shared(key: string, value: T): T {
    const known = this.values.get(key);
    if (known !== undefined) return known;
    if (this.values.size >= this.limit) this.values.clear();
    this.values.set(key, Object.freeze(value));
    return value;
  }

  get size(): number {
    return this.values.size;
  }
}
