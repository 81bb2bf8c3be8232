package rules

// objectRules are the per-object built-in rules written in Go: each sees
// one object (ObjectContext). One rule per file, object_<category>_<name>.go;
// see README.md.
var objectRules = []GoRule{}
