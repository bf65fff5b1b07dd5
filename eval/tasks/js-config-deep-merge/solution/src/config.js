export const defaults = {
  server: { host: "127.0.0.1", port: 8080 },
  log: { level: "info", pretty: false },
};

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function merge(base, override) {
  const out = { ...base };
  for (const [key, value] of Object.entries(override)) out[key] = isObject(value) && isObject(base[key]) ? merge(base[key], value) : value;
  return out;
}

export function loadConfig(user = {}) {
  return merge(defaults, user);
}
