package lint

// RegoOnly makes l evaluate every built-in rule in Rego, those written in
// Go too, for the differential test.
func RegoOnly(l *Linter) *Linter {
	l.regoOnly = true
	return l
}
