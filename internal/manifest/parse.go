package manifest

// Parse loads one file's content already in memory, naming it name in every
// Source, as Load would load a file of that name. lint --base-ref parses a
// file's version at a git ref with it, and lint --live the YAML rendering of
// cluster objects, so that both carry positions as files do.
func Parse(name string, data []byte) *Set {
	set := &Set{Files: 1}
	parse(set, name, data)
	set.sort()
	return set
}
