package main

import rego.v1

# Resolves a name through net.lookup_ip_addr: refused at compile time.
deny contains msg if {
	addrs := net.lookup_ip_addr("example.invalid")
	count(addrs) == 0
	msg := "no address"
}
