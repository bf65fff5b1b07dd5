package kv

import (
	"reflect"
	"testing"
)

func TestHiddenParseKV(t *testing.T) {
	got := ParseKV("token=abc=def;user=bob; ;flag")
	want := map[string]string{"token": "abc=def", "user": "bob", "flag": ""}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseKV = %v, want %v", got, want)
	}
}
