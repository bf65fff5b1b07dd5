import { destination, type DestinationStream } from "pino";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * A pino destination appending to a file (mode 0600 via the directory's 0700). Synchronous: the
 * supervisor logs little, and `aide up` may exit at any moment of its start (a signal, a refusal),
 * when an asynchronous destination that is still opening would throw instead of flushing.
 */
export function openLogDestination(path: string): DestinationStream {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  return destination({ dest: path, append: true, mkdir: true, sync: true });
}
