package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// addSeeds adds every manifest under the repository's examples/, testdata/
// and this package's testdata/ to a fuzz corpus.
func addSeeds(f *testing.F, add func(data []byte)) {
	f.Helper()
	for _, dir := range []string{"../../examples", "../../testdata/hostile", "testdata"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !extensions[strings.ToLower(filepath.Ext(path))] {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			add(data)
			return nil
		})
		if err != nil {
			f.Fatalf("seed corpus %s: %v", dir, err)
		}
	}
}

// FuzzLoad loads arbitrary bytes as standard input, then asks each object
// for the position of every field it holds and of an arbitrary path. Loading
// must never panic, every problem and object must stand inside the file, a
// field that exists must be found exactly, and every object's JSON must be
// valid.
func FuzzLoad(f *testing.F) {
	addSeeds(f, func(data []byte) { f.Add(data, "spec.template.spec.containers[0].image") })
	f.Add([]byte("a: &a [*a]\n"), "a[0]")
	f.Add([]byte("{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}\n{\"a\":"), "metadata.labels[app.kubernetes.io/name]")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		set := Load([]string{"-"}, bytes.NewReader(data))
		lines := yamlLines(data)
		inFile := func(p Pos) bool { return p.Line >= 1 && p.Line <= lines && p.Column >= 1 }
		for _, p := range set.Problems {
			if p.File != StdinName || p.Message == "" {
				t.Errorf("problem %+v: want file %s and a message", p, StdinName)
			}
			if (p.Kind == Unparsable || p.Kind == LimitExceeded) && !inFile(p.Pos) {
				t.Errorf("problem %+v: position outside the file's %d lines", p, lines)
			}
		}
		for _, o := range set.Objects {
			if !inFile(o.Start) {
				t.Errorf("object %s: start %s outside the file's %d lines", o.Ref(), o.Start, lines)
			}
			if !json.Valid(o.JSON) {
				t.Errorf("object %s: invalid JSON %q", o.Ref(), o.JSON)
			}
			for field, want := range allPositions(o) {
				// A key holding a bracket cannot be written unambiguously in
				// the API server's notation ("[0]]" for the key "0]", found by
				// FuzzLoad); such a field is placed at an ancestor.
				if !roundTrips(field) {
					continue
				}
				if got, exact := o.Position(field); !exact || got != want {
					t.Errorf("object %s: Position(%q) = %s, %v, want %s, true", o.Ref(), field, got, exact, want)
				}
				if !inFile(want) {
					t.Errorf("object %s: field %q at %s, outside the file's %d lines", o.Ref(), field, want, lines)
				}
			}
			if got, _ := o.Position(path); !inFile(got) {
				t.Errorf("object %s: Position(%q) = %s, outside the file's %d lines", o.Ref(), path, got, lines)
			}
			o.ResolveLoose(path, "")
		}
	})
}

// FuzzYAMLToJSON is a differential fuzzer for treeJSON: every document
// treeJSON converts must come out byte for byte as sigs.k8s.io/yaml converts
// it, and treeHeader must read what json.Unmarshal reads of it (convertOne).
// When treeJSON converts every document of the input, loading it with and
// without treeJSON must give the same Set. (Otherwise sigs.k8s.io/yaml does
// both loads, and its output may vary for colliding keys such as 1 and "1".)
func FuzzYAMLToJSON(f *testing.F) {
	for _, tt := range trickyDocs {
		f.Add([]byte(tt.doc))
	}
	addSeeds(f, func(data []byte) { f.Add(data) })
	f.Fuzz(func(t *testing.T, data []byte) {
		allFast := true
		for i, doc := range documentsOf(data) {
			if converted, fast := convertOne(t, fmt.Sprintf("document %d", i), doc); converted && !fast {
				allFast = false
			}
		}
		if !allFast {
			return
		}
		fast, slow := &Set{Files: 1}, &Set{Files: 1}
		parseDocuments(fast, "in.yaml", data, true)
		parseDocuments(slow, "in.yaml", data, false)
		fast.sort()
		slow.sort()
		withoutComments(fast)
		withoutComments(slow)
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("loaded with treeJSON:\n%s\nwith sigs.k8s.io/yaml:\n%s", setString(fast), setString(slow))
		}
	})
}

// yamlLines counts lines as YAML does: CR LF, LF, a lone CR, NEL (U+0085),
// LS (U+2028) and PS (U+2029) each end one (found by FuzzLoad: "0\r0:" and
// "\"\u0085" have their errors on line 2).
func yamlLines(data []byte) int {
	n := 1
	for i, r := range string(data) {
		switch r {
		case '\n':
			if i == 0 || data[i-1] != '\r' {
				n++
			}
		case '\r', '\u0085', '\u2028', '\u2029':
			n++
		}
	}
	return n
}

// roundTrips reports whether a canonical path splits back into itself: keys
// holding brackets ("0]", "0[]") do not, and Position places them at an
// ancestor.
func roundTrips(field string) bool {
	c := ""
	for _, seg := range splitFieldPath(field) {
		c = appendKey(c, seg)
	}
	return c == field
}
