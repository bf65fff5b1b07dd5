import { aideError } from "@aide/contracts";

export interface CommandSlots {
  /** Waits for a free slot (FIFO); past the queue limit the caller gets BUSY. Returns the release function. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  inUse(): number;
  waiting(): number;
}

/** A bounded queue in front of the sandbox so a burst of commands cannot overload a small machine. */
export function createCommandSlots(concurrency: number, maxWaiting: number): CommandSlots {
  let active = 0;
  const queue: Array<() => void> = [];
  const release = () => {
    active -= 1;
    const next = queue.shift();
    if (next !== undefined) {
      active += 1;
      next();
    }
  };
  return {
    inUse: () => active,
    waiting: () => queue.length,
    async acquire(signal) {
      if (active < concurrency) {
        active += 1;
        return release;
      }
      if (queue.length >= maxWaiting) throw aideError("BUSY", { detail: `${active} commands running and ${queue.length} waiting` });
      await new Promise<void>((resolve, reject) => {
        const entry = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = () => {
          const index = queue.indexOf(entry);
          if (index !== -1) queue.splice(index, 1);
          reject(aideError("ABORTED"));
        };
        queue.push(entry);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
      return release;
    },
  };
}
