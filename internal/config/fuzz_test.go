package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzLoad loads hostile configuration files: Load never panics, and a file
// it accepts answers every question (excluded, disabled, exempt) about
// texts of any shape within a second, whatever its globs.
//
//	go test ./internal/config -run '^$' -fuzz FuzzLoad -fuzztime 60s
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), "charts/app/templates/deploy.yaml")
	}
	f.Add("exclude: [\""+bomb+"\"]\n", strings.Repeat("a", 40)+"c")
	f.Add("rules:\n  disable: [\"{a,{b,{c,d}}}*\"]\nexemptions:\n  - name: \"[!a-z]?*\"\n    reason: r\n", "x/y")
	f.Add("exclude: [\"**/gen/**\", \"a/**/b\", \"[a-\"]\n", "a/b")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text, path string) {
		if len(text) > 1<<14 || len(path) > 1<<10 {
			return
		}
		p := filepath.Join(dir, FileName)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p)
		if err != nil || c == nil {
			return
		}
		start := time.Now()
		c.Excluded(path)
		c.Disabled(path)
		c.Enabled(path)
		c.Exempt(path, path, path, path)
		c.ExemptContainer(path, path, path, path, path)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("matching %q against the config took %s", path, d)
		}
	})
}
