// Where the list's headings and rows sit (_list.ts): every row has the same height, so a card's place is
// arithmetic, and ten thousand cards need no measuring. A model's layout is made once per keystroke;
// the map of every card's place only when a key or a click needs it.
import type { ListGroup } from "./_list.ts";
import type { Row } from "./_query.ts";

/** Heights in CSS pixels; style.css gives `.group-head` and `.row` the same. */
export const HEAD_H = 36;
export const ROW_H = 58;

/** A kind's block: its heading at `top`, its rows from `rowsTop` to `bottom`. */
export interface Placed {
  group: ListGroup;
  top: number;
  rowsTop: number;
  bottom: number;
}

/** A card's place: its kind's block, its index there, and its index among all visible cards. */
export interface Spot {
  group: Placed;
  index: number;
  flat: number;
}

export class Layout {
  readonly placed: Placed[] = [];
  readonly height: number;
  /** Where each visible card is (folded kinds left out), made when first needed. */
  private located?: { at: Map<string, Spot>; order: Row[] };

  constructor(groups: readonly ListGroup[]) {
    let y = 0;
    for (const group of groups) {
      const rowsTop = y + HEAD_H;
      const bottom = rowsTop + (group.collapsed ? 0 : group.rows.length * ROW_H);
      this.placed.push({ group, top: y, rowsTop, bottom });
      y = bottom;
    }
    this.height = y;
  }

  /** Every visible card's place, and the cards in order: what the arrow keys walk. */
  spots(): { at: Map<string, Spot>; order: Row[] } {
    if (this.located) return this.located;
    const at = new Map<string, Spot>();
    const order: Row[] = [];
    for (const p of this.placed) {
      if (p.group.collapsed) continue;
      p.group.rows.forEach((row, index) => {
        at.set(row.id, { group: p, index, flat: order.length + index });
      });
      order.push(...p.group.rows);
    }
    this.located = { at, order };
    return this.located;
  }

  /**
   * Where one card is, without making the map: a keystroke in the search box sets a new model and needs
   * only the Tab stop's card (a scan of the ids costs less than a map of them).
   */
  find(id: string): Spot | undefined {
    if (this.located) return this.located.at.get(id);
    for (const p of this.placed) {
      if (p.group.collapsed) continue;
      const index = p.group.rows.findIndex((r) => r.id === id);
      if (index >= 0) return { group: p, index, flat: -1 };
    }
    return undefined;
  }

  firstShown(): string | undefined {
    return this.placed.find((p) => !p.group.collapsed)?.group.rows[0]?.id;
  }
}
