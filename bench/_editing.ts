/**
 * Sequential requests through a gateway while another process saves a card every 100 ms, the way an
 * editor saves (a temp file renamed over the card), and the same requests without saves just before:
 * the samples of each, and the CPU the gateway spent per request (its own threads) and in the
 * refresh processes it ran and waited for. Section 4 of bench/gateway.ts.
 */
import path from "node:path";
import { BUN, type Sample, type Server, samplesOf, type Via } from "./_servers.ts";
import { cpuSecondsOf } from "./_stats.ts";

/**
 * The editing loop, in a process of its own (so its file writes never delay a timed request here):
 * saves one of the files given as arguments every 100 ms until stopped, then prints how many saves it
 * made.
 */
const EDITOR = `
const { editCard } = await import(${JSON.stringify(path.join(import.meta.dir, "_workload.ts"))});
const files = process.argv.slice(1);
let edits = 0;
const timer = setInterval(() => editCard(files[edits % files.length], edits++), 100);
process.on("SIGTERM", () => { clearInterval(timer); console.log(edits); process.exit(0); });
`;

export interface EditingRun {
  samples: Partial<Record<Via, Sample[]>>;
  /** The gateway's own CPU per request, in ms. */
  own: number;
  /** CPU seconds of the processes it ran and waited for (its refreshes). */
  children: number;
}

/** Without saves, then while `files` are saved in turn, `seconds` each. */
export async function whileEditing(
  gateway: Server,
  direct: string,
  files: readonly string[],
  body: (i: number) => string,
  seconds: number,
): Promise<{ quiet: EditingRun; saving: EditingRun; edits: string }> {
  const pid = gateway.pid!;
  const cpu = () => ({ own: cpuSecondsOf(pid), all: cpuSecondsOf(pid, true) });
  const run = async (offset: number): Promise<EditingRun> => {
    const before = cpu();
    const samples = await samplesOf({ direct, gateway: gateway.url }, (i) => body(offset + i), { seconds });
    const after = cpu();
    const own = after.own - before.own;
    return { samples, own: (own / samples.gateway!.length) * 1000, children: after.all - before.all - own };
  };
  const quiet = await run(1000);
  const editor = Bun.spawn([BUN, "-e", EDITOR, ...files], { stdout: "pipe", stderr: "inherit" });
  let saving: EditingRun;
  try {
    saving = await run(0);
  } finally {
    editor.kill("SIGTERM");
    await editor.exited;
  }
  return { quiet, saving, edits: (await new Response(editor.stdout).text()).trim() };
}
