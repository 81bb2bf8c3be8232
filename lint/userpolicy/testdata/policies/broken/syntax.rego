package main

deny contains msg if {
	msg := "unterminated
}
