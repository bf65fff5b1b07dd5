package clamp

import "testing"

func TestHiddenClamp(t *testing.T) {
	if Clamp(-1, -5, 5) != -1 || Clamp(-9, -5, 5) != -5 || Clamp(9, -5, 5) != 5 {
		t.Fatal("Clamp is wrong on a range around zero")
	}
}
