// Package rules is what lint checks: the built-in rule catalogue, written
// in Go on the typed, defaulted objects (one BuiltinRule per rule, its metadata
// as data: catalogue_object.go, catalogue_cross.go), and the metadata of
// the rules lint's tiers raise (catalogue_tier.go). User policies, in
// Rego, are lint/userpolicy's. Rules return findings as data; the package
// never prints.
package rules

// Severities a rule may declare.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Rule is one built-in rule's metadata.
type Rule struct {
	// ID is the rule id, such as rollout/downtime.
	ID       string `json:"id"`
	Title    string `json:"title"`
	Severity string `json:"severity"`
	// Description says what the rule checks and why it matters.
	Description string `json:"description"`
	// Remediation says how to fix a finding; it ends with a period.
	Remediation string `json:"remediation"`
	// File is the rule's Go source file in rules/.
	File string `json:"file"`
	// Kinds are the kinds of object the rule can report on, or nil for
	// any: a cross-resource rule is evaluated only on objects of its kinds.
	Kinds []string `json:"-"`
	// OptIn is set for a rule that is off by default until the
	// configuration enables it (rules.enable).
	OptIn bool `json:"optIn,omitempty"`
	// Measured is the rule's precision on real inputs, as reviewed finding
	// by finding (docs/realworld-findings.md): how many of its findings were
	// true problems for their input. Empty when no real input raised it.
	Measured string `json:"measured,omitempty"`
}

// Builtin returns the built-in rules' metadata, sorted by id. The caller
// may modify the slice, not the rules' Kinds.
func Builtin() []Rule {
	rs := builtinCatalogue()
	out := make([]Rule, len(rs))
	for i := range rs {
		out[i] = rs[i].Meta
	}
	return out
}

// Lookup returns the built-in rule with the given id.
func Lookup(id string) (Rule, bool) {
	g, ok := builtinByID()[id]
	if !ok {
		return Rule{}, false
	}
	return g.Meta, true
}

// OptIn reports whether the built-in rule id is off by default.
func OptIn(id string) bool {
	r, ok := Lookup(id)
	return ok && r.OptIn
}
