// Package lib embeds the Rego library the built-in rules share (*.rego in
// this directory, with their _test.rego files) for the rules package.
package lib

import "embed"

// FS holds the directory's .rego files.
//
//go:embed *.rego
var FS embed.FS
