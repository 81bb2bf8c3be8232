// Package nearest finds, among candidates, the one a string is most likely
// a misspelling of, for "did you mean" hints.
package nearest

import "sort"

// Nearest returns the candidate closest to s by edit distance, when it is
// close enough to be a misspelling of it (at most a third of s's length,
// and at least 1), or "". Ties go to the first in sorted order.
func Nearest(s string, candidates []string) string {
	best, bestDist := "", -1
	sorted := append([]string{}, candidates...)
	sort.Strings(sorted)
	for _, c := range sorted {
		d := Distance(s, c)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := max(1, len(s)/3)
	if bestDist < 0 || bestDist > limit || best == s {
		return ""
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Close reports whether b is near enough to a to be a misspelling of it, as
// Nearest judges: different, and at most max(1, len(a)/3) edits away.
func Close(a, b string) bool {
	return a != b && Distance(a, b) <= max(1, len(a)/3)
}
