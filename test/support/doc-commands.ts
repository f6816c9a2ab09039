/**
 * The commands the README and docs/ show, read from their fenced blocks (`bash`, `sh`, and the `$ `
 * lines of `console`), one per command line: a line ending in `\` goes on, `#` starts a comment
 * outside quotes, and a heredoc is one command with its body. test/e2e/doc-commands.test.ts runs them.
 */
import fs from "node:fs";
import path from "node:path";

export interface DocCommand {
  /** The page, from the repository's root. */
  file: string;
  /** Which fenced block of the page, from 0. */
  block: number;
  line: string;
  /** What a `console` block shows the command printing, when it shows something. */
  output?: string;
}

/** `cmd  # comment` → `cmd`, leaving a `#` inside quotes alone. */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

function shellCommands(body: string): string[] {
  const out: string[] = [];
  const lines = body.split("\n");
  let current = "";
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (current === "" && (raw.trim() === "" || raw.trim().startsWith("#"))) continue;
    const line = withoutComment(raw);
    const heredoc = /<<-?\s*'?(\w+)'?/.exec(line);
    if (heredoc) {
      const end = lines.findIndex((l, j) => j > i && l.trim() === heredoc[1]);
      out.push([current + line, ...lines.slice(i + 1, end + 1)].join("\n"));
      current = "";
      i = end;
      continue;
    }
    if (line.endsWith("\\")) {
      current += `${line.slice(0, -1).trimEnd()} `;
      continue;
    }
    // A pipe at the end of a line goes on with the next one.
    if (line.endsWith("|")) {
      current += `${line} `;
      continue;
    }
    out.push((current + line).trim());
    current = "";
  }
  return out;
}

function consoleCommands(body: string): { line: string; output: string }[] {
  const out: { line: string; output: string }[] = [];
  const lines = body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith("$ ")) continue;
    let line = lines[i]!.slice(2);
    while (line.endsWith("\\") && i + 1 < lines.length)
      line = `${line.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
    const output: string[] = [];
    while (i + 1 < lines.length && !lines[i + 1]!.startsWith("$ ")) output.push(lines[++i]!);
    out.push({ line, output: output.join("\n").trimEnd() });
  }
  return out;
}

/** Every command of one page, in the order a reader meets them. */
export function docCommands(root: string, file: string): DocCommand[] {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  const found: DocCommand[] = [];
  let block = 0;
  for (const m of text.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
    const [, lang = "", body = ""] = m;
    if (lang === "bash" || lang === "sh")
      for (const line of shellCommands(body)) found.push({ file, block, line });
    else if (lang === "console")
      for (const c of consoleCommands(body))
        found.push({ file, block, line: c.line, output: c.output || undefined });
    block++;
  }
  return found;
}

/** The pages whose commands are run: the README and every page of docs/. */
export function docPages(root: string): string[] {
  return [
    "README.md",
    ...fs
      .readdirSync(path.join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

/** The ```json block that follows the first mention of `name` on a page (a file a command reads). */
export function jsonBlockAfter(root: string, file: string, name: string): string | undefined {
  return blockAfter(root, file, name, "json");
}

/** The first fenced block in `lang` after the first mention of `name` on a page (a recipe's code). */
export function blockAfter(root: string, file: string, name: string, lang: string): string | undefined {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  const at = text.indexOf(name);
  if (at < 0) return undefined;
  return new RegExp(`^\`\`\`${lang}\n([\\s\\S]*?)^\`\`\``, "m").exec(text.slice(at))?.[1];
}
