// Log writes that cannot take a process down. When whatever reads a process's stdout or stderr goes
// away (a closed terminal, a log shipper that died, a pipe whose reader exited), every write fails
// with EPIPE. Unhandled, that error reaches the process's error logging, which writes to the same
// dead stream, which fails again: Next's router-server was found spinning at 100 % CPU in exactly
// that loop (logError → console.error → EPIPE → destroy → error → logError), answering neither
// health check nor SIGTERM. After the first failed write a guarded stream drops what is written to
// it: losing log lines is the only safe outcome once nobody can read them.

type Stdio = NodeJS.WriteStream | NodeJS.WritableStream;

const guarded = new WeakSet<object>();

/** Makes `streams` (stdout and stderr by default) swallow writes once writing to them has failed. */
export function guardStdio(streams: Stdio[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    if (guarded.has(stream)) continue;
    guarded.add(stream);
    stream.on("error", () => silence(stream));
  }
}

function silence(stream: Stdio): void {
  // A write callback must still run, or a caller waiting on it (a flush before exit) would wait forever.
  stream.write = ((_chunk: unknown, encodingOrCallback?: unknown, callback?: unknown) => {
    const done = typeof encodingOrCallback === "function" ? encodingOrCallback : callback;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  }) as typeof stream.write;
}
