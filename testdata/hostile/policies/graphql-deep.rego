package main

import rego.v1

# A query nested 2^21 deep (each line doubles the depth): the parser
# recurses once per level and overflows the goroutine stack.
deny contains msg if {
	q0 := "{a}"
	q1 := replace(q0, "a", q0)
	q2 := replace(q1, "a", q1)
	q3 := replace(q2, "a", q2)
	q4 := replace(q3, "a", q3)
	q5 := replace(q4, "a", q4)
	q6 := replace(q5, "a", q5)
	q7 := replace(q6, "a", q6)
	q8 := replace(q7, "a", q7)
	q9 := replace(q8, "a", q8)
	q10 := replace(q9, "a", q9)
	q11 := replace(q10, "a", q10)
	q12 := replace(q11, "a", q11)
	q13 := replace(q12, "a", q12)
	q14 := replace(q13, "a", q13)
	q15 := replace(q14, "a", q14)
	q16 := replace(q15, "a", q15)
	q17 := replace(q16, "a", q16)
	q18 := replace(q17, "a", q17)
	q19 := replace(q18, "a", q18)
	q20 := replace(q19, "a", q19)
	q21 := replace(q20, "a", q20)
	graphql.parse_query(q21)
	msg := "never reached"
}

warn contains msg if {
	graphql.parse_query("{ a { b } }")
	msg := "parsed"
}
