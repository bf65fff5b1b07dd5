package freq

import (
	"reflect"
	"testing"
)

func TestHiddenTopN(t *testing.T) {
	counts := Count("b a c b a b d")
	if got, want := TopN(counts, 2), []string{"b", "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("TopN(2) = %v, want %v", got, want)
	}
	if got, want := TopN(counts, 10), []string{"b", "a", "c", "d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("TopN(10) = %v, want %v", got, want)
	}
	if got := TopN(map[string]int{}, 3); len(got) != 0 {
		t.Errorf("TopN of nothing = %v, want empty", got)
	}
}
