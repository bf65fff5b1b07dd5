package freq

import "strings"

// Count returns how often each lower-cased word occurs in text.
func Count(text string) map[string]int {
	counts := map[string]int{}
	for _, word := range strings.Fields(strings.ToLower(text)) {
		counts[word]++
	}
	return counts
}
