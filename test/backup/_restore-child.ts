// Run by restore-crash.test.ts in a process of its own, which kills itself (SIGKILL) at one exact
// point of a forced restore, as a crash or `kill -9` would:
//   bun test/backup/_restore-child.ts <archive> <vault> stage|move:<n>
// `stage` dies once the backup's first files are staged (before the swap); `move:<n>` just before
// the swap's rename number n (0 is the first: the journal is written, nothing is moved yet).
import fs from "node:fs";
import { restoreBackup } from "../../src/backup/index.ts";

const [archive, target, at] = process.argv.slice(2) as [string, string, string];
const die = () => process.kill(process.pid, "SIGKILL");

// The files are staged by writer threads: the first chunk they report written is the point to die at.
const progress = at === "stage" ? die : undefined;
if (at !== "stage") {
  const when = Number(at.split(":")[1]);
  const rename = fs.renameSync;
  let n = 0;
  fs.renameSync = (from: fs.PathLike, to: fs.PathLike) => {
    if (n++ === when) die();
    rename(from, to);
  };
}
await restoreBackup(archive, { target, force: true, progress });
process.stdout.write("finished\n");
