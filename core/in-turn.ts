// Lifecycles that must not interleave (start and stop of a client or a service): each step runs once the one before
// it has settled, in the order called.

/** A queue of async steps: the function it returns runs `step` after every step given before, and passes on its outcome. */
export function inTurn(): (step: () => Promise<void>) => Promise<void> {
  let last: Promise<void> = Promise.resolve();
  return (step) => {
    const next = last.then(step);
    // A failed step fails its own caller only; the next step still runs.
    last = next.catch(() => undefined);
    return next;
  };
}
