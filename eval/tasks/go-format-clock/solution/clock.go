package clock

import "fmt"

// FormatClock renders a number of seconds as HH:MM:SS.
func FormatClock(seconds int) string {
	h := seconds / 3600
	m := seconds % 3600 / 60
	s := seconds % 60
	return fmt.Sprintf("%02d:%02d:%02d", h, m, s)
}
