package stack

import "testing"

func TestHiddenPop(t *testing.T) {
	var s Stack
	if v, ok := s.Pop(); v != 0 || ok {
		t.Fatalf("Pop on empty = %d, %v; want 0, false", v, ok)
	}
	s.Push(1)
	s.Push(2)
	if v, ok := s.Pop(); v != 2 || !ok {
		t.Fatalf("Pop = %d, %v; want 2, true", v, ok)
	}
	if v, ok := s.Pop(); v != 1 || !ok || s.Len() != 0 {
		t.Fatalf("Pop = %d, %v (len %d); want 1, true (len 0)", v, ok, s.Len())
	}
	if _, ok := s.Pop(); ok {
		t.Fatal("Pop after emptying should report false")
	}
}
