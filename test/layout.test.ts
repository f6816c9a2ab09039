// The layout docs/ARCHITECTURE.md promises, held true: dependencies between the folders of src/ point
// one way (no cycle of folders through value imports; a type-only import costs nothing at run time and
// may point anywhere), a file another folder imports is no `_`-private one, and no file is over 400
// lines. Imports are read as Bun reads them (`Bun.Transpiler.scanImports`, which drops type-only ones).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../src");
const MAX_LINES = 400;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The folder a file belongs to: its first directory under src/, or the file itself at the top. */
function folderOf(file: string): string {
  const rel = relative(SRC, file);
  return rel.includes("/") ? rel.slice(0, rel.indexOf("/")) : rel;
}

interface Edge {
  from: string;
  to: string;
}

const transpiler = new Bun.Transpiler({ loader: "ts" });

/** Every value import of one file into src/ (packages and non-code assets left out). */
function valueImports(file: string): Edge[] {
  const code = readFileSync(file, "utf8");
  return transpiler
    .scanImports(code)
    .filter((i) => i.path.startsWith("."))
    .map((i) => resolve(dirname(file), i.path))
    .filter((to) => to.startsWith(`${SRC}/`) && /\.(ts|tsx)$/.test(to))
    .map((to) => ({ from: file, to }));
}

const files = sources(SRC);
const edges = files.flatMap(valueImports);

/** Folder → the folders it imports values from, with one file pair that shows each. */
function folderGraph(): Map<string, Map<string, Edge>> {
  const graph = new Map<string, Map<string, Edge>>();
  for (const edge of edges) {
    const [a, b] = [folderOf(edge.from), folderOf(edge.to)];
    if (a === b) continue;
    const out = graph.get(a) ?? new Map<string, Edge>();
    if (!out.has(b)) out.set(b, edge);
    graph.set(a, out);
  }
  return graph;
}

/** A cycle of folders as "a → b → a", each step with a file pair that makes it, or null for none. */
function findCycle(graph: Map<string, Map<string, Edge>>): string | null {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (state.get(next) === "open") return [...path.slice(path.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of graph.keys()) {
    if (state.has(node)) continue;
    const cycle = visit(node);
    if (cycle) {
      const steps = cycle.slice(1).map((to, i) => {
        const e = graph.get(cycle[i]!)!.get(to)!;
        return `${relative(SRC, e.from)} → ${relative(SRC, e.to)}`;
      });
      return `${cycle.join(" → ")} (${steps.join("; ")})`;
    }
  }
  return null;
}

describe("the layout of src/", () => {
  test("no cycle of folders through value imports", () => {
    expect(findCycle(folderGraph())).toBeNull();
  });

  test("the checker finds a cycle when there is one", () => {
    const edge = (from: string, to: string): Edge => ({ from: join(SRC, from), to: join(SRC, to) });
    const graph = new Map([
      ["a", new Map([["b", edge("a/x.ts", "b/y.ts")]])],
      ["b", new Map([["a", edge("b/y.ts", "a/z.ts")]])],
    ]);
    expect(findCycle(graph)).toBe("a → b → a (a/x.ts → b/y.ts; b/y.ts → a/z.ts)");
  });

  test("no folder imports another folder's `_`-private file", () => {
    const reaching = edges
      .filter((e) => folderOf(e.from) !== folderOf(e.to) && basename(e.to).startsWith("_"))
      .map((e) => `${relative(SRC, e.from)} → ${relative(SRC, e.to)}`);
    expect(reaching).toEqual([]);
  });

  test(`no file over ${MAX_LINES} lines`, () => {
    const long = files
      .map((f) => [relative(SRC, f), readFileSync(f, "utf8").split("\n").length - 1] as const)
      .filter(([, lines]) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
