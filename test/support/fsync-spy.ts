/**
 * Notes the fsyncs a piece of code makes, each by the path its descriptor was opened with. The real
 * calls still run (the files are really made durable): the spies only take notes. Restore them with
 * `mockRestore()` when done.
 */
import { spyOn } from "bun:test";
import fs from "node:fs";

export function spyOnFsyncs(onSync: (path: string) => void) {
  const paths = new Map<number, string>();
  const { openSync, fsyncSync } = fs;
  return [
    spyOn(fs, "openSync").mockImplementation(((...args: Parameters<typeof openSync>) => {
      const fd = openSync(...args);
      paths.set(fd, String(args[0]));
      return fd;
    }) as typeof openSync),
    spyOn(fs, "fsyncSync").mockImplementation((fd) => {
      onSync(paths.get(fd)!);
      fsyncSync(fd);
    }),
  ];
}
