// Package builtin embeds the built-in Rego rules (*.rego in this directory,
// with their _test.rego files) for the rules package.
package builtin

import "embed"

// FS holds the directory's .rego files.
//
//go:embed *.rego
var FS embed.FS
