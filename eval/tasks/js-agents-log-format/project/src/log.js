/** One line per event on stderr: `level=warn event=module.what key=value …` (values as JSON). */
export function log(level, event, fields = {}) {
  const parts = [`level=${level}`, `event=${event}`, ...Object.entries(fields).map(([key, value]) => `${key}=${JSON.stringify(value)}`)];
  process.stderr.write(`${parts.join(" ")}\n`);
}
