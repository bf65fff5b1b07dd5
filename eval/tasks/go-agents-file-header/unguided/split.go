package money

// SplitCents splits total into parts amounts that differ by at most one cent
// and add up to total, the larger ones first; parts <= 0 returns nil.
func SplitCents(total int64, parts int) []int64 {
	if parts <= 0 {
		return nil
	}
	n := int64(parts)
	base, rest := total/n, total%n
	out := make([]int64, parts)
	for i := range out {
		out[i] = base
		if int64(i) < rest {
			out[i]++
		}
	}
	return out
}
