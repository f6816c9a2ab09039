/**
 * One Aho–Corasick automaton over every card's folded terms. Built once per vault version; a lookup
 * walks each message once, so its cost follows the length of the text and the number of hits, not
 * the number of cards. Nodes live in typed arrays (children as sibling lists; the root, which has a
 * child per distinct first character, uses a Map) to keep 100k-card vaults compact.
 */

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
  root: Int32Array; // pairs of (char code, node)
  firstChild: Int32Array;
  nextSibling: Int32Array;
  fail: Int32Array;
  output: Int32Array;
  dictLink: Int32Array;
  depth: Int32Array;
  edgeChar: Uint16Array;
}

export class Automaton {
  private readonly rootChildren = new Map<number, number>();
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
      for (let i = 0; i < p.root.length; i += 2) this.rootChildren.set(p.root[i]!, p.root[i + 1]!);
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
  }

  toParts(): AutomatonParts {
    const root = new Int32Array(this.rootChildren.size * 2);
    let i = 0;
    for (const [code, node] of this.rootChildren) {
      root[i++] = code;
      root[i++] = node;
    }
    const n = this.size;
    return {
      size: n,
      termCount: this.termCount,
      root,
      firstChild: this.firstChild.subarray(0, n),
      nextSibling: this.nextSibling.subarray(0, n),
      fail: this.fail.subarray(0, n),
      output: this.output.subarray(0, n),
      dictLink: this.dictLink.subarray(0, n),
      depth: this.depth.subarray(0, n),
      edgeChar: this.edgeChar.subarray(0, n),
    };
  }

  private child(node: number, code: number): number {
    if (node === 0) return this.rootChildren.get(code) ?? -1;
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
        if (node === 0) this.rootChildren.set(code, next);
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
    for (const c of this.rootChildren.values()) {
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
