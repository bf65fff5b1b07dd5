package report

import "fmt"

// Summary describes a named collection and its size.
func Summary(name string, count int) string {
	return fmt.Sprintf("%d has %d items", name, count)
}
