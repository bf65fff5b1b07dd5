package freq

import (
	"sort"
	"strings"
)

// Count returns how often each lower-cased word occurs in text.
func Count(text string) map[string]int {
	counts := map[string]int{}
	for _, word := range strings.Fields(strings.ToLower(text)) {
		counts[word]++
	}
	return counts
}

// TopN returns the n most frequent words, most frequent first, ties alphabetically.
func TopN(counts map[string]int, n int) []string {
	words := make([]string, 0, len(counts))
	for word := range counts {
		words = append(words, word)
	}
	sort.Slice(words, func(i, j int) bool {
		if counts[words[i]] != counts[words[j]] {
			return counts[words[i]] > counts[words[j]]
		}
		return words[i] < words[j]
	})
	if n < len(words) {
		words = words[:n]
	}
	return words
}
