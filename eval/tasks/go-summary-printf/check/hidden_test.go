package report

import "testing"

func TestHiddenSummary(t *testing.T) {
	if got := Summary("cart", 3); got != "cart has 3 items" {
		t.Fatalf("Summary = %q", got)
	}
	if got := Summary("box", 0); got != "box has 0 items" {
		t.Fatalf("Summary = %q", got)
	}
}
