package main

import rego.v1

# A pattern built at run time that does not compile.
deny contains "bad name" if {
	pattern := concat("", ["^(", input.metadata.name])
	regex.match(pattern, input.metadata.name)
}
