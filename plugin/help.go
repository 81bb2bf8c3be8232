package plugin

import (
	"embed"
	"strings"
)

// helpFiles are the commands' long descriptions (help/CMD.txt) and examples
// (help/CMD-example.txt), kept as text beside the commands that show them.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help is help/name.txt without its final newline. The files are embedded, so
// a missing one is a programming error that every help test catches.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}
