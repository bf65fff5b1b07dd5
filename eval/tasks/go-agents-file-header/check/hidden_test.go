package money

import (
	"reflect"
	"testing"
)

func TestHiddenSplitCents(t *testing.T) {
	cases := []struct {
		total int64
		parts int
		want  []int64
	}{
		{100, 3, []int64{34, 33, 33}},
		{10, 4, []int64{3, 3, 2, 2}},
		{9, 3, []int64{3, 3, 3}},
		{5, 0, nil},
		{5, -1, nil},
	}
	for _, c := range cases {
		if got := SplitCents(c.total, c.parts); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitCents(%d, %d) = %v, want %v", c.total, c.parts, got, c.want)
		}
	}
	if Format(1234) != "12.34" {
		t.Errorf("Format changed")
	}
}
