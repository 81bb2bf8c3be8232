package main

import rego.v1

deny contains msg if {
	resp := http.send({"method": "GET", "url": "http://example.invalid/allow"})
	resp.status_code != 200
	msg := "not allowed"
}
