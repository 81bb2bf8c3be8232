package manifest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func objectNamed(t *testing.T, set *Set, name string) *Object {
	t.Helper()
	for _, o := range set.Objects {
		if o.Name == name {
			return o
		}
	}
	t.Fatalf("no object named %q among %d objects", name, len(set.Objects))
	return nil
}

func TestLoadMultiDocumentPositions(t *testing.T) {
	set := Load([]string{"testdata/multi.yaml"}, nil)
	if len(set.Problems) != 0 {
		t.Fatalf("Load problems = %+v, want none", set.Problems)
	}
	if got, want := len(set.Objects), 2; got != want {
		t.Fatalf("Load objects = %d, want %d", got, want)
	}
	if got, want := set.Documents, 3; got != want {
		t.Errorf("Load documents = %d, want %d (comment-only and empty documents do not count)", got, want)
	}
	web := objectNamed(t, set, "web")
	if web.Document != 0 || web.Kind != "Deployment" || web.APIVersion != "apps/v1" {
		t.Errorf("web = document %d %s %s, want document 0 apps/v1 Deployment", web.Document, web.APIVersion, web.Kind)
	}
	tests := []struct {
		path      string
		want      Pos
		wantExact bool
	}{
		{path: "", want: Pos{3, 1}, wantExact: true},
		{path: "spec.replicas", want: Pos{10, 3}, wantExact: true},
		{path: "spec.template.spec.containers[0].image", want: Pos{15, 9}, wantExact: true},
		{path: "spec.template.spec.containers[1]", want: Pos{18, 9}, wantExact: true},
		{path: "spec.template.spec.containers[1].name", want: Pos{18, 9}, wantExact: true},
		{path: "spec.template.spec.containers[0].ports[0].containerPort", want: Pos{17, 11}, wantExact: true},
		// A map key in the API server's [key] notation.
		{path: "metadata.labels[app.kubernetes.io/name]", want: Pos{8, 5}, wantExact: true},
		// Absent fields fall back to their nearest existing ancestor.
		{path: "spec.selector", want: Pos{9, 1}, wantExact: false},
		{path: "spec.template.metadata.labels", want: Pos{11, 3}, wantExact: false},
		{path: "spec.template.spec.containers[5].image", want: Pos{13, 7}, wantExact: false},
		// upstream's quirk: the label-length error names spec.template.labels.
		{path: "spec.template.labels", want: Pos{11, 3}, wantExact: false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, exact := web.Position(tt.path)
			if got != tt.want || exact != tt.wantExact {
				t.Errorf("Position(%q) = %v, %v, want %v, %v", tt.path, got, exact, tt.want, tt.wantExact)
			}
		})
	}

	cm := objectNamed(t, set, "settings")
	if cm.Document != 1 || cm.Namespace != "prod" {
		t.Errorf("settings = document %d namespace %q, want document 1 namespace prod", cm.Document, cm.Namespace)
	}
	if len(cm.Duplicates) != 1 {
		t.Fatalf("settings duplicates = %+v, want one", cm.Duplicates)
	}
	d := cm.Duplicates[0]
	if d.Field != "data.replicas" || d.Pos != (Pos{29, 3}) || d.First != (Pos{28, 3}) {
		t.Errorf("duplicate = %+v, want data.replicas at 29:3, first at 28:3", d)
	}
	if !strings.Contains(string(cm.JSON), `"replicas":"2"`) {
		t.Errorf("settings JSON = %s, want the last value of the duplicated key, as kubectl sends", cm.JSON)
	}
	if len(set.Skipped) != 1 || set.Skipped[0].Pos.Line != 31 {
		t.Errorf("skipped = %+v, want the non-Kubernetes document at line 31", set.Skipped)
	}
}

func TestLoadJSONListFlattened(t *testing.T) {
	set := Load([]string{"testdata/list.json"}, nil)
	if len(set.Problems) != 0 {
		t.Fatalf("Load problems = %+v, want none", set.Problems)
	}
	if got := len(set.Objects); got != 2 {
		t.Fatalf("Load objects = %d, want 2 List items", got)
	}
	a, b := objectNamed(t, set, "a"), objectNamed(t, set, "b")
	if a.Item != 0 || b.Item != 1 {
		t.Errorf("items = %d, %d, want 0, 1", a.Item, b.Item)
	}
	if a.Start != (Pos{5, 3}) {
		t.Errorf("a.Start = %v, want 5:3 (tabs count as one column)", a.Start)
	}
	if got, _ := a.Position("spec.containers"); got != (Pos{5, 75}) {
		t.Errorf("a.Position(spec.containers) = %v, want 5:75", got)
	}
	if got, _ := b.Position("spec.replicas"); got != (Pos{10, 13}) {
		t.Errorf("b.Position(spec.replicas) = %v, want 10:13", got)
	}
	if string(a.JSON) != `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[]}}` {
		t.Errorf("a.JSON = %s", a.JSON)
	}
	if len(set.Skipped) != 1 || !strings.Contains(set.Skipped[0].Reason, "item 2 of List") {
		t.Errorf("skipped = %+v, want item 2 of List", set.Skipped)
	}
}

func TestLoadBadDocumentsKeepTheRest(t *testing.T) {
	set := Load([]string{"testdata/broken.yaml", "testdata/badjson.json"}, nil)
	var names []string
	for _, o := range set.Objects {
		names = append(names, o.Name)
	}
	if got, want := strings.Join(names, ","), "before,after"; got != want {
		t.Errorf("objects = %s, want %s: the documents around bad ones must still load", got, want)
	}
	want := []struct {
		file string
		doc  int
		line int
		text string
	}{
		{"testdata/badjson.json", 0, 3, "cannot parse JSON"},
		{"testdata/broken.yaml", 1, 11, "template expression ({{ }}) at line 11"},
		{"testdata/broken.yaml", 2, 16, "cannot parse YAML"},
	}
	if len(set.Problems) != len(want) {
		t.Fatalf("problems = %+v, want %d", set.Problems, len(want))
	}
	for i, w := range want {
		p := set.Problems[i]
		if p.File != w.file || p.Document != w.doc || p.Pos.Line != w.line || p.Kind != Unparsable || !strings.Contains(p.Message, w.text) {
			t.Errorf("problem %d = %+v, want %s document %d line %d containing %q", i, p, w.file, w.doc, w.line, w.text)
		}
	}
}

func TestLoadDirectoriesStdinAndMissingPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pod := func(name string) string { return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n" }
	write("a/pod.yml", pod("yml"))
	write("a/b/pod.YAML", pod("upper"))
	write("a/b/pod.json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"json"}}`)
	write("a/notes.txt", pod("txt"))
	write("a/.git/pod.yaml", pod("git"))
	write("explicit.txt", pod("explicit"))

	stdin := strings.NewReader(pod("stdin") + "---\n" + pod("stdin2"))
	set := Load([]string{filepath.Join(dir, "a"), filepath.Join(dir, "explicit.txt"), "-", filepath.Join(dir, "missing.yaml"), "-"}, stdin)
	var names []string
	for _, o := range set.Objects {
		names = append(names, o.Name+"@"+filepath.Base(o.File))
	}
	got := strings.Join(names, ",")
	want := "upper@pod.YAML,json@pod.json,yml@pod.yml,explicit@explicit.txt,stdin@<stdin>,stdin2@<stdin>"
	if got != want {
		t.Errorf("objects = %s, want %s", got, want)
	}
	if set.Files != 5 {
		t.Errorf("files = %d, want 5 (stdin read once)", set.Files)
	}
	if len(set.Problems) != 1 || set.Problems[0].Kind != Unreadable || !strings.Contains(set.Problems[0].Message, "no such file") {
		t.Errorf("problems = %+v, want one unreadable path", set.Problems)
	}
}

func TestLoadKustomizePatchesSkipped(t *testing.T) {
	set := Load([]string{"testdata/kustomize"}, nil)
	var names []string
	for _, o := range set.Objects {
		names = append(names, o.Kind+"/"+o.Name)
	}
	if got, want := strings.Join(names, ","), "Kustomization/,Pod/base"; got != want {
		t.Errorf("objects = %s, want %s", got, want)
	}
	if len(set.Skipped) != 1 || !strings.Contains(set.Skipped[0].Reason, "Kustomize patch") || filepath.Base(set.Skipped[0].File) != "patch.yaml" {
		t.Errorf("skipped = %+v, want patch.yaml as a Kustomize patch", set.Skipped)
	}
}

func TestBadSeparatorReportedAndSplit(t *testing.T) {
	in := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n--- oops\napiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n"
	set := Load([]string{"-"}, strings.NewReader(in))
	if len(set.Objects) != 2 {
		t.Errorf("objects = %d, want 2", len(set.Objects))
	}
	if len(set.Problems) != 1 || set.Problems[0].Pos.Line != 5 || !strings.Contains(set.Problems[0].Message, "separator") {
		t.Errorf("problems = %+v, want the separator at line 5", set.Problems)
	}
}

func TestSplitFieldPath(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"spec.template.spec.containers[0].image", "spec|template|spec|containers|0|image"},
		{"metadata.labels[app.kubernetes.io/name]", "metadata|labels|app.kubernetes.io/name"},
		{"spec.volumes[0].rbd.imageformat", "spec|volumes|0|rbd|imageformat"},
		{"items[3]", "items|3"},
		{"a[unterminated", "a|unterminated"},
	}
	for _, tt := range tests {
		if got := strings.Join(splitFieldPath(tt.in), "|"); got != tt.want {
			t.Errorf("splitFieldPath(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestLoadKustomizePatchesInOtherDirectories: an overlay's patches in a
// subdirectory, in a directory shared by overlays (../common), and a
// component's patches are fragments wherever they are, skipped and counted.
func TestLoadKustomizePatchesInOtherDirectories(t *testing.T) {
	for _, paths := range [][]string{
		{"testdata/kustomize-overlays"},
		{"testdata/kustomize-overlays/overlays/prod", "testdata/kustomize-overlays/overlays/common", "testdata/kustomize-overlays/components"},
	} {
		set := Load(paths, nil)
		var skipped []string
		for _, s := range set.Skipped {
			if strings.Contains(s.Reason, "Kustomize patch") {
				skipped = append(skipped, filepath.ToSlash(strings.TrimPrefix(s.File, "testdata/kustomize-overlays/")))
			}
		}
		sort.Strings(skipped)
		want := "components/probes/probe-patch.yaml,overlays/common/hpa-patch.yaml,overlays/prod/patches/deploy.yaml,overlays/prod/patches/json6902.yaml"
		if got := strings.Join(skipped, ","); got != want {
			t.Errorf("Load(%v) skipped patches %s, want %s", paths, got, want)
		}
		for _, o := range set.Objects {
			if o.Kind == "HorizontalPodAutoscaler" || (o.Kind == "Deployment" && !strings.Contains(o.File, "base")) {
				t.Errorf("Load(%v) loaded the patch %s as an object", paths, o.File)
			}
		}
	}
}

// TestLoadKustomizePatchNamedAlone: a patch named on its own, in an
// overlay's subdirectory, is known by the kustomization above it.
func TestLoadKustomizePatchNamedAlone(t *testing.T) {
	set := Load([]string{"testdata/kustomize-overlays/overlays/prod/patches/deploy.yaml"}, nil)
	if len(set.Objects) != 0 || len(set.Skipped) != 1 || !strings.Contains(set.Skipped[0].Reason, "Kustomize patch") {
		t.Errorf("Load(patch alone) = %d objects, skipped %+v; want it skipped as a Kustomize patch", len(set.Objects), set.Skipped)
	}
}

// TestJSONEscapedSlash: "\/" is a JSON escape yaml.v3 does not know; a JSON
// file that writes it loads (kubectl's JSON decoder reads it), and the
// fields after it on its line keep their columns.
func TestJSONEscapedSlash(t *testing.T) {
	data := `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "annotations": {"example.com\/a": "x\/y\\\/z", "b": "1"}},
 "data": {"path": "\/etc\/app", "k": "v"}}
`
	set := Parse("c.json", []byte(data))
	if len(set.Problems) > 0 || len(set.Objects) != 1 {
		t.Fatalf("problems %v, %d objects", set.Problems, len(set.Objects))
	}
	obj := set.Objects[0]
	for path, want := range map[string]string{
		"metadata.annotations[b]":             `"b": "1"`,
		"metadata.annotations[example.com/a]": `"example.com\/a"`,
		"data.k":                              `"k": "v"`,
	} {
		line, col := 1, strings.Index(data, want)+1
		if nl := strings.LastIndex(data[:col-1], "\n"); nl >= 0 {
			line, col = 2, col-1-nl
		}
		pos, ok := obj.Position(path)
		if !ok || pos.Line != line || pos.Column != col {
			t.Errorf("%s at %v (found %v), want %d:%d", path, pos, ok, line, col)
		}
	}
	if !strings.Contains(string(obj.JSON), `"x\/y\\\/z"`) && !strings.Contains(string(obj.JSON), `"x/y\\/z"`) {
		t.Errorf("JSON %s lost the value x/y\\/z", obj.JSON)
	}
}
