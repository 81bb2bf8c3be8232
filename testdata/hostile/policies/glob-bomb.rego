package main

import rego.v1

# gobwas/glob's matcher backtracks: 2^40 steps on this 200-byte pattern.
deny contains msg if {
	p := concat("", [concat("", [x | some _ in numbers.range(1, 40); x := "{a,a}"]), "[b]"])
	glob.match(p, [], concat("", [concat("", [x | some _ in numbers.range(1, 40); x := "a"]), "c"]))
	msg := "never matches"
}

warn contains msg if {
	glob.match("{c,C}onfig{m,M}ap", [], input.kind)
	msg := "a ConfigMap"
}
