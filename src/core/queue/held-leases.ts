/** Claims remembered per table; past it the oldest is forgotten and its release asks only that the row be open. */
const HELD_LIMIT = 10_000;

/**
 * The lease each claim of this instance wrote (the exact `locked_until` text), by row id, until the row is finished
 * here: what a finishing write compares with, so it lands only while the row is still this claim's.
 */
export class HeldLeases {
  private readonly byId = new Map<string, string>();

  hold(id: string, lease: string): void {
    this.byId.delete(id); // the newest claim last, so the oldest goes first
    this.byId.set(id, lease);
    if (this.byId.size > HELD_LIMIT) this.byId.delete(this.byId.keys().next().value as string);
  }

  /** `null` for a row this instance did not claim (or claimed too long ago to remember). */
  leaseOf(id: string): string | null {
    return this.byId.get(id) ?? null;
  }

  /** Only the claim that `lease` names: a newer claim of the same row made meanwhile stays. */
  forget(id: string, lease: string | null): void {
    if (lease !== null && this.byId.get(id) === lease) this.byId.delete(id);
  }

  /** The ids by the lease each is held under (`null`: not claimed here), in one pass. */
  grouped(ids: string[]): Map<string | null, string[]> {
    const byLease = new Map<string | null, string[]>();
    for (const id of ids) {
      const lease = this.leaseOf(id);
      byLease.set(lease, [...(byLease.get(lease) ?? []), id]);
    }
    return byLease;
  }
}
