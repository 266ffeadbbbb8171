/** A line of progress that a long command keeps up to date while it runs. */
export interface Progress {
  update(text: string): void;
  /** Clears the line, before the command prints its result. */
  done(): void;
}

export const noProgress: Progress = { update: () => {}, done: () => {} };

/**
 * Progress on `stream` (stderr) redrawn in place with `\r` when it is a terminal, at most every `intervalMs`;
 * nothing at all when it is not, so logs and pipes see only the result.
 */
export function terminalProgress(stream: { isTTY?: boolean; write(text: string): unknown } = process.stderr, intervalMs = 100): Progress {
  if (!stream.isTTY) return noProgress;
  let last = 0;
  let shown = false;
  return {
    update(text) {
      const now = Date.now();
      if (shown && now - last < intervalMs) return;
      last = now;
      shown = true;
      stream.write(`\r${text}\x1b[K`);
    },
    done() {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
  };
}
