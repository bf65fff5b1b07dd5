export const defaults = {
  server: { host: "127.0.0.1", port: 8080 },
  log: { level: "info", pretty: false },
};

export function loadConfig(user = {}) {
  return { ...defaults, ...user };
}
