package kv

import "strings"

// ParseKV parses "key=value;key=value" into a map. Empty entries are skipped.
func ParseKV(s string) map[string]string {
	out := map[string]string{}
	for _, entry := range strings.Split(s, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		parts := strings.Split(entry, "=")
		if len(parts) < 2 {
			out[parts[0]] = ""
			continue
		}
		out[parts[0]] = parts[1]
	}
	return out
}
