const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A one-line spinner on a terminal; a no-op elsewhere. `clear()` before writing anything else. */
export function createSpinner(stream: NodeJS.WriteStream, enabled: boolean) {
  let timer: NodeJS.Timeout | undefined;
  let label = "";
  let index = 0;
  const clear = () => {
    if (timer) {
      clearInterval(timer);
      timer = undefined;
      stream.write("\r\u001b[2K");
    }
  };
  return {
    start(text: string) {
      if (!enabled) return;
      label = text;
      if (timer) return;
      timer = setInterval(() => {
        index = (index + 1) % frames.length;
        stream.write(`\r\u001b[2K${frames[index]} ${label}`);
      }, 120);
      timer.unref();
    },
    clear,
  };
}
export type Spinner = ReturnType<typeof createSpinner>;
