package clock

import "testing"

func TestHiddenFormatClock(t *testing.T) {
	cases := map[int]string{3725: "01:02:05", 0: "00:00:00", 59: "00:00:59", 86399: "23:59:59", 360000: "100:00:00"}
	for in, want := range cases {
		if got := FormatClock(in); got != want {
			t.Errorf("FormatClock(%d) = %q, want %q", in, got, want)
		}
	}
}
