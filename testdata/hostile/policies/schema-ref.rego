package main

import rego.v1

# A schema whose $ref would be fetched: the password goes out in the URL.
deny contains msg if {
	some c in input.spec.template.spec.containers
	some e in c.env
	schema := {"$ref": sprintf("http://127.0.0.1:1/%s", [e.value])}
	[ok, _] := json.match_schema(input, schema)
	not ok
	msg := "schema"
}
