package rules

// Finding is one result of a built-in rule or a user policy.
type Finding struct {
	// RuleID is the built-in rule's id, or policy/<namespace>/<rule> for a
	// user policy.
	RuleID   string
	Severity string
	Message  string
	// Path is the field the finding is about, in the API server's notation,
	// or "" for the object as a whole.
	Path string
	// Related is, for a cross-resource finding that names a few of many
	// related objects ("and N more"), how many there are in all; 0
	// otherwise.
	Related int
}
