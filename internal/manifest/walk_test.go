package manifest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// walkDirOracle is the walk as filepath.WalkDir and one stat per name make
// it, the way expand walked before walkTree read directories side by side.
func walkDirOracle(p string, render bool) ([]string, []renderDir, []string) {
	var files []string
	var dirs []renderDir
	var problems []string
	_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: walk %s: %v", path, path, err))
			if d != nil && d.IsDir() && path != p {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" && path != p {
				return fs.SkipDir
			}
			if render {
				if kind, ok := statListing(path).kind(); ok {
					if kind != Kustomization || path == p || !isComponent(path) {
						dirs = append(dirs, renderDir{dir: path, kind: kind})
					}
					return fs.SkipDir
				}
			}
			return nil
		}
		if d.Type().IsRegular() && extensions[strings.ToLower(filepath.Ext(path))] {
			files = append(files, path)
		}
		return nil
	})
	return files, dirs, problems
}

// writeWalkTree makes a directory tree of every case the walk tells apart.
func writeWalkTree(t *testing.T, root string, breadth int) {
	t.Helper()
	write := func(name, text string) { writeTree(t, root, map[string]string{name: text}) }
	for i := range breadth {
		svc := fmt.Sprintf("team-%d/svc-%02d", i%3, i)
		write(svc+"/deployment.yaml", "kind: Deployment\n")
		write(svc+"/service.YML", "kind: Service\n")
		write(svc+"/values.json", "{}\n")
		write(svc+"/README.md", "not linted\n")
		write(svc+"/deep/er/still/job.yaml", "kind: Job\n")
		switch i % 5 {
		case 0:
			write(svc+"/chart/Chart.yaml", "name: c\n")
			write(svc+"/chart/templates/t.yaml", "kind: Pod\n")
		case 1:
			write(svc+"/overlay/kustomization.yaml", "resources: [../base]\n")
			write(svc+"/base/Kustomization", "resources: [d.yaml]\n")
			write(svc+"/base/d.yaml", "kind: Deployment\n")
		case 2:
			write(svc+"/component/kustomization.yml", "kind: Component\n")
			write(svc+"/component/p.yaml", "kind: Deployment\n")
		case 3:
			write(svc+"/.git/config.yaml", "not linted\n")
			write(svc+"/a.git/x.yaml", "kind: Pod\n")
		case 4:
			// A chart and a kustomization in one directory: a chart.
			write(svc+"/both/Chart.yaml", "name: c\n")
			write(svc+"/both/kustomization.yaml", "resources: []\n")
			if err := os.Symlink("../deep", filepath.Join(root, svc, "linked")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("deployment.yaml", filepath.Join(root, svc, "linked.yaml")); err != nil {
				t.Fatal(err)
			}
			// Chart.yaml as a link to a file still makes a chart.
			write(svc+"/shared/Chart.yaml.real", "name: c\n")
			if err := os.Symlink("Chart.yaml.real", filepath.Join(root, svc, "shared", "Chart.yaml")); err != nil {
				t.Fatal(err)
			}
			// A directory named kustomization.yaml does not make one.
			if err := os.MkdirAll(filepath.Join(root, svc, "odd", "kustomization.yaml"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(svc+"/odd/o.yaml", "kind: Pod\n")
		}
	}
	write("top.yaml", "kind: Pod\n")
	write(".git/HEAD", "ref\n")
}

// TestWalkTreeMatchesWalkDir compares the side-by-side walk with
// filepath.WalkDir's, on every case writeWalkTree makes, with and without
// rendering, from the root and from subdirectories.
func TestWalkTreeMatchesWalkDir(t *testing.T) {
	root := t.TempDir()
	writeWalkTree(t, root, 40)
	for _, start := range []string{root, filepath.Join(root, "team-1"), filepath.Join(root, "team-0", "svc-00", "chart"),
		filepath.Join(root, "team-2", "svc-02", "component"), filepath.Join(root, ".git")} {
		for _, render := range []bool{true, false} {
			wantFiles, wantDirs, wantProblems := walkDirOracle(start, render)
			files, dirs, problems := walkTree(start, render, newListings())
			var got []string
			for _, p := range problems {
				got = append(got, p.Source.File+": "+p.Message)
			}
			name := fmt.Sprintf("%s render=%v", strings.TrimPrefix(start, root), render)
			if !slices.Equal(files, wantFiles) {
				t.Errorf("%s: files differ:\n got %q\nwant %q", name, files, wantFiles)
			}
			if !slices.Equal(dirs, wantDirs) {
				t.Errorf("%s: render dirs differ:\n got %v\nwant %v", name, dirs, wantDirs)
			}
			if !slices.Equal(got, wantProblems) {
				t.Errorf("%s: problems differ:\n got %q\nwant %q", name, got, wantProblems)
			}
			if start == root && len(files) < 150 {
				t.Errorf("%s: only %d files: the tree is not what the test means", name, len(files))
			}
		}
	}
}

// TestWalkTreeUnreadableDirectory: a directory the walk cannot list is a
// problem at its path, and its siblings are still walked.
func TestWalkTreeUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	root := t.TempDir()
	writeWalkTree(t, root, 6)
	locked := filepath.Join(root, "team-1", "svc-04")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	wantFiles, wantDirs, wantProblems := walkDirOracle(root, true)
	files, dirs, problems := walkTree(root, true, newListings())
	if len(problems) != 1 || len(wantProblems) != 1 || problems[0].Source.File+": "+problems[0].Message != wantProblems[0] {
		t.Errorf("problems: got %v, want %q", problems, wantProblems)
	}
	if !slices.Equal(files, wantFiles) || !slices.Equal(dirs, wantDirs) {
		t.Errorf("files or dirs differ from filepath.WalkDir's")
	}
}

// TestExpandFollowsALinkedDirectory: a directory named through a symbolic
// link is linted (filepath.WalkDir alone does not enter it: before, such a
// run said "no files read").
func TestExpandFollowsALinkedDirectory(t *testing.T) {
	root := t.TempDir()
	writeWalkTree(t, root, 3)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(root, "team-1"), link); err != nil {
		t.Fatal(err)
	}
	inputs, problems := Expand([]string{link}, nil)
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	var names []string
	for _, in := range inputs {
		names = append(names, strings.TrimPrefix(in.Name, link))
	}
	want := []string{"/svc-01/base/d.yaml", "/svc-01/deep/er/still/job.yaml", "/svc-01/deployment.yaml",
		"/svc-01/overlay/kustomization.yaml", "/svc-01/service.YML", "/svc-01/values.json"}
	if !slices.Equal(names, want) {
		t.Errorf("inputs through the link:\n got %q\nwant %q", names, want)
	}
	for _, in := range inputs {
		if strings.HasSuffix(in.Name, "d.yaml") && in.skip != "" {
			t.Errorf("%s is skipped (%s): a resource is not a patch", in.Name, in.skip)
		}
	}
}

// TestPatchIndexReadsListings: the patch index finds the kustomization the
// walk listed, and asks the file system for directories above the walk.
func TestPatchIndexReadsListings(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"app/kustomization.yaml": "resources: [d.yaml]\npatches:\n- path: patches/p.yaml\n",
		"app/d.yaml":             "kind: Deployment\n",
		"app/patches/p.yaml":     "kind: Deployment\n",
	})
	// Expanded from the patches directory alone, the kustomization is one
	// level above the walk; from the top, the listing has it.
	for _, arg := range []string{filepath.Join(root, "app", "patches"), root} {
		inputs, problems := Expand([]string{arg}, nil)
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		found := false
		for _, in := range inputs {
			if strings.HasSuffix(in.Name, "p.yaml") {
				found = true
				if !strings.Contains(in.skip, "kustomization.yaml") {
					t.Errorf("from %s: %s is not skipped as a patch (skip %q)", arg, in.Name, in.skip)
				}
			}
		}
		if !found {
			t.Errorf("from %s: p.yaml not among the inputs", arg)
		}
	}
}
