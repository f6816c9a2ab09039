/**
 * One Aho–Corasick automaton over every card's folded terms. Built once per vault version; a lookup
 * walks each message once, so its cost follows the length of the text and the number of hits, not
 * the number of cards. Nodes live in typed arrays (children as sibling lists) to keep 100k-card vaults
 * compact and usable straight from a snapshot's bytes. The root, which has a child per distinct first
 * character, is a direct table for ASCII and a sorted list searched by halves for the rest, so loading
 * a snapshot builds nothing.
 */

import { TextMemo } from "../text-memo.ts";

export interface AutomatonHit {
  term: number;
  /** Start and end (exclusive) in UTF-16 units of the scanned text. */
  start: number;
  end: number;
}

/** The automaton's arrays, for saving it to disk and loading it back without a rebuild. */
export interface AutomatonParts {
  size: number;
  termCount: number;
  root: Int32Array; // pairs of (char code, node), ascending by char code
  firstChild: Int32Array;
  nextSibling: Int32Array;
  fail: Int32Array;
  output: Int32Array;
  dictLink: Int32Array;
  depth: Int32Array;
  edgeChar: Uint16Array;
}

const ASCII = 128;

/**
 * Characters of the texts whose hits an automaton keeps (`hitsOf`): the window messages of the latest
 * requests, each of which comes back while it stays in its conversation's window. Hits are few beside
 * the text, so this is about 1 MB of retained text at most.
 */
const HITS_KEPT = 500_000;
/** A text longer than this is scanned each time. */
const HITS_LONGEST = 64_000;

export class Automaton {
  /** The root's children while building; frozen into `rootAscii` and `rootPairs` once built. */
  private building?: Map<number, number> = new Map();
  private rootAscii = new Int32Array(ASCII).fill(-1);
  private rootPairs: Int32Array = new Int32Array(0);
  private firstChild: Int32Array;
  private nextSibling: Int32Array;
  private edgeChar: Uint16Array;
  private fail: Int32Array;
  /** Term ending at this node, or -1. */
  private output: Int32Array;
  /** Nearest node on the fail chain that has an output, or -1. */
  private dictLink: Int32Array;
  private depth: Int32Array;
  private size = 1;
  readonly termCount: number;
  private readonly hits = new TextMemo<readonly AutomatonHit[]>(HITS_KEPT, HITS_LONGEST);

  constructor(terms: readonly string[] | AutomatonParts) {
    if (!Array.isArray(terms)) {
      const p = terms as AutomatonParts;
      this.firstChild = p.firstChild;
      this.nextSibling = p.nextSibling;
      this.edgeChar = p.edgeChar;
      this.fail = p.fail;
      this.output = p.output;
      this.dictLink = p.dictLink;
      this.depth = p.depth;
      this.size = p.size;
      this.termCount = p.termCount;
      this.freeze(p.root);
      return;
    }
    let capacity = 1;
    for (const t of terms) capacity += t.length;
    this.firstChild = new Int32Array(capacity).fill(-1);
    this.nextSibling = new Int32Array(capacity).fill(-1);
    this.edgeChar = new Uint16Array(capacity);
    this.fail = new Int32Array(capacity);
    this.output = new Int32Array(capacity).fill(-1);
    this.dictLink = new Int32Array(capacity).fill(-1);
    this.depth = new Int32Array(capacity);
    this.termCount = terms.length;
    terms.forEach((term, id) => {
      this.insert(term, id);
    });
    this.link();
    const pairs = [...this.building!].sort((a, b) => a[0] - b[0]);
    this.freeze(Int32Array.from(pairs.flat()));
  }

  private freeze(pairs: Int32Array): void {
    this.building = undefined;
    this.rootPairs = pairs;
    for (let i = 0; i < pairs.length && pairs[i]! < ASCII; i += 2) this.rootAscii[pairs[i]!] = pairs[i + 1]!;
  }

  toParts(): AutomatonParts {
    const n = this.size;
    return {
      size: n,
      termCount: this.termCount,
      root: this.rootPairs,
      firstChild: this.firstChild.subarray(0, n),
      nextSibling: this.nextSibling.subarray(0, n),
      fail: this.fail.subarray(0, n),
      output: this.output.subarray(0, n),
      dictLink: this.dictLink.subarray(0, n),
      depth: this.depth.subarray(0, n),
      edgeChar: this.edgeChar.subarray(0, n),
    };
  }

  private rootChild(code: number): number {
    if (this.building) return this.building.get(code) ?? -1;
    if (code < ASCII) return this.rootAscii[code]!;
    const pairs = this.rootPairs;
    let lo = 0;
    let hi = (pairs.length >> 1) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = pairs[mid * 2]!;
      if (at === code) return pairs[mid * 2 + 1]!;
      if (at < code) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private child(node: number, code: number): number {
    if (node === 0) return this.rootChild(code);
    for (let c = this.firstChild[node]!; c !== -1; c = this.nextSibling[c]!) {
      if (this.edgeChar[c] === code) return c;
    }
    return -1;
  }

  private insert(term: string, id: number): void {
    if (term.length === 0) return;
    let node = 0;
    for (let i = 0; i < term.length; i++) {
      const code = term.charCodeAt(i);
      let next = this.child(node, code);
      if (next === -1) {
        next = this.size++;
        this.edgeChar[next] = code;
        this.depth[next] = this.depth[node]! + 1;
        if (node === 0) this.building!.set(code, next);
        else {
          this.nextSibling[next] = this.firstChild[node]!;
          this.firstChild[node] = next;
        }
      }
      node = next;
    }
    // Terms are deduplicated by the caller; keep the first id if one repeats anyway.
    if (this.output[node] === -1) this.output[node] = id;
  }

  /** Breadth-first fail links: each node points at its longest proper suffix that is also a prefix. */
  private link(): void {
    const queue = new Int32Array(this.size);
    let head = 0;
    let tail = 0;
    for (const c of this.building!.values()) {
      this.fail[c] = 0;
      queue[tail++] = c;
    }
    while (head < tail) {
      const node = queue[head++]!;
      for (let c = this.firstChild[node]!; c !== -1; c = this.nextSibling[c]!) {
        const code = this.edgeChar[c]!;
        let f = this.fail[node]!;
        let target = this.child(f, code);
        while (target === -1 && f !== 0) {
          f = this.fail[f]!;
          target = this.child(f, code);
        }
        const failTo = target === -1 || target === c ? 0 : target;
        this.fail[c] = failTo;
        this.dictLink[c] = this.output[failTo] !== -1 ? failTo : this.dictLink[failTo]!;
        queue[tail++] = c;
      }
    }
  }

  /**
   * Every occurrence of every term in `text` (already folded), in the order `scan` finds them;
   * remembered for the texts scanned lately (a message is scanned on every turn it stays in the window).
   */
  hitsOf(text: string): readonly AutomatonHit[] {
    return this.hits.get(text, () => {
      const found: AutomatonHit[] = [];
      this.scan(text, (hit) => found.push(hit));
      return found;
    });
  }

  /** Every occurrence of every term in `text` (already folded). */
  scan(text: string, onHit: (hit: AutomatonHit) => void): void {
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let next = this.child(node, code);
      while (next === -1 && node !== 0) {
        node = this.fail[node]!;
        next = this.child(node, code);
      }
      node = next === -1 ? 0 : next;
      for (let n = this.output[node] !== -1 ? node : this.dictLink[node]!; n !== -1; n = this.dictLink[n]!) {
        const len = this.depth[n]!;
        onHit({ term: this.output[n]!, start: i + 1 - len, end: i + 1 });
      }
    }
  }
}
