// The venue's nonce rules (gaps-decided §3), scoped per signer: unused, greater than the smallest of the signer's 100
// highest accepted nonces once 100 are kept (any unused one before), and within 24 h of the venue clock.
// Invariant: a nonce that was accepted once is rejected forever (none is evicted before the window is full, and evicted ones lie below the floor).

export interface NonceGuardOptions {
  /** How many of each signer's highest accepted nonces are kept. Default 100. */
  window?: number;
  /** Allowed distance from the venue clock, in ns. Default 24 h. */
  maxSkewNs?: bigint;
}

export class NonceGuard {
  private readonly accepted = new Map<string, bigint[]>();
  private readonly window: number;
  private readonly maxSkewNs: bigint;

  constructor(opts: NonceGuardOptions = {}) {
    this.window = opts.window ?? 100;
    this.maxSkewNs = opts.maxSkewNs ?? 86_400_000_000_000n;
  }

  /** Why `nonce` is unacceptable for `signer` at `nowNs`, or undefined when it is acceptable. */
  check(signer: string, nonce: bigint, nowNs: bigint): string | undefined {
    const skew = nonce > nowNs ? nonce - nowNs : nowNs - nonce;
    if (skew > this.maxSkewNs) return 'stale nonce: more than 24 hours from the venue clock';
    const kept = this.accepted.get(signer);
    if (!kept) return undefined;
    if (binarySearch(kept, nonce) >= 0) return 'nonce already used';
    if (kept.length >= this.window && nonce <= kept[0]!) return `stale nonce: not above the smallest of the ${this.window} highest accepted nonces`;
    return undefined;
  }

  /** Records an accepted nonce (call only after `check` passed and the action was applied). */
  accept(signer: string, nonce: bigint): void {
    let kept = this.accepted.get(signer);
    if (!kept) this.accepted.set(signer, (kept = []));
    const at = -binarySearch(kept, nonce) - 1;
    if (at < 0) return;
    kept.splice(at, 0, nonce);
    if (kept.length > this.window) kept.shift();
  }
}

/** Index of `x` in ascending `a`, or -(insertion point) - 1. */
function binarySearch(a: bigint[], x: bigint): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = a[mid]!;
    if (v < x) lo = mid + 1;
    else if (v > x) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}
