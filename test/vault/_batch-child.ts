// Run by batch.test.ts in a process of its own, which kills itself (SIGKILL) at one exact step of a
// batch placement, as a crash or `kill -9` would:
//   bun test/vault/_batch-child.ts <vault> <count> text:<i>|progress:<done> new|replace
// `text:<i>` dies while the text of file i is being made (earlier files are being written meanwhile);
// `progress:<done>` when the placement reports that many steps done (count staged, then one per move).
import { cardPath, openVault, placeAll } from "../../src/vault/index.ts";

const [root, count, at, mode] = process.argv.slice(2) as [string, string, string, string];
const [step, value] = at.split(":") as [string, string];
const when = Number(value);
const die = () => process.kill(process.pid, "SIGKILL");

const vault = openVault(root);
const files = Array.from({ length: Number(count) }, (_, i) => ({
  target: cardPath(vault, "people", `P${i}`),
  replaces: mode === "replace",
  text: () => {
    if (step === "text" && i === when) die();
    return `---\ntitle: P${i}\n---\nNEW ${i}\n`;
  },
}));
await placeAll(vault, files, (done) => {
  if (step === "progress" && done === when) die();
});
