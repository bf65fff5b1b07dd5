package words

import "testing"

func TestHiddenReverseWords(t *testing.T) {
	cases := map[string]string{"one two three": "three two one", "solo": "solo", "": "", "  a   b ": "b a"}
	for in, want := range cases {
		if got := ReverseWords(in); got != want {
			t.Errorf("ReverseWords(%q) = %q, want %q", in, got, want)
		}
	}
}
