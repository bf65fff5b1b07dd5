package stack

// Stack is a last-in, first-out stack of ints.
type Stack struct {
	items []int
}

// Push puts v on top.
func (s *Stack) Push(v int) {
	s.items = append(s.items, v)
}

// Pop removes and returns the top value; ok is false when the stack is empty.
func (s *Stack) Pop() (v int, ok bool) {
	last := len(s.items) - 1
	v = s.items[last]
	s.items = s.items[:last]
	return v, true
}

// Len is the number of values on the stack.
func (s *Stack) Len() int { return len(s.items) }
