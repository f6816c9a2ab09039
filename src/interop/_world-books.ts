/**
 * The books SillyTavern's World Info import converts besides its own, one file each (_risu.ts,
 * _novel.ts, _agnai.ts, _kobold.ts) and one row each here (docs/ARCHITECTURE.md, "Adding a lorebook
 * format"). A format says how to recognise its JSON and turns its entries into World Info rows, which
 * the World Info table (_st.ts) then reads as SillyTavern does; an entry it cannot take is skipped with
 * why. The first format whose `detect` accepts a book reads it, before SillyTavern's own shape.
 */
import { agnaiBook } from "./_agnai.ts";
import { koboldBook } from "./_kobold.ts";
import { novelBook } from "./_novel.ts";
import { risuBook } from "./_risu.ts";

export const WORLD_BOOKS = [risuBook, novelBook, agnaiBook, koboldBook] as const;

export type WorldBookName = (typeof WORLD_BOOKS)[number]["format"];
