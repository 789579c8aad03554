// Which process holds a TCP connection, from Linux's /proc: the soak's receiver knows the sending
// port of a delivery it holds, and the fault kills the worker that is sending it.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Socket inodes of the TCP connections whose local port is `port`. */
function socketInodes(port: number): Set<string> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns[1]?.endsWith(hex)) inodes.add(columns[9]);
    }
  }
  return inodes;
}

/** Whether process `pid` has a connection open from local port `port`. */
export function holdsLocalPort(pid: number, port: number): boolean {
  const inodes = socketInodes(port);
  if (!inodes.size) return false;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match && inodes.has(match[1])) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}
