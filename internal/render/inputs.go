package render

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kubectl-workload/kubectl-workload/internal/boundedread"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// readInput reads a file of the input (a kustomization, a values file, a
// chart's file): a regular file of at most manifest.MaxFileSize bytes, never
// a FIFO or a device (boundedread).
func readInput(name string) ([]byte, error) {
	return boundedread.ReadFile(name, manifest.MaxFileSize)
}

// checkChartFiles refuses a chart directory that holds a symbolic link
// leading out of root (the input the chart was found in: the repository or
// the directory given; the chart itself when root is ""), or a file helm
// would read that is not a regular file (a FIFO would hang helm's loader,
// /dev/zero fill memory) or is larger than manifest.MaxFileSize. helm's
// loader follows symbolic links wherever they lead (pkg/chart/loader,
// sympath.Walk), and a template may print a file's content
// ({{ .Files.Get }}), so a link out of the input would put a file of the
// machine running lint into a finding. A link to a directory elsewhere in
// the input (rook-ceph's charts/library -> ../../library) is walked where
// it leads, as helm's loader walks it. The first problem is returned,
// naming the file.
func checkChartFiles(dir, root string) error {
	if root == "" {
		root = dir
	}
	walked := map[string]bool{}
	var check func(dir string) error
	check = func(dir string) error {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return err
		}
		if walked[real] {
			return nil // a loop of links, or a directory linked twice
		}
		walked[real] = true
		// The separator makes a root that is itself a link be walked.
		return filepath.WalkDir(dir+string(filepath.Separator), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type()&fs.ModeSymlink != 0 {
				if err := boundedread.Inside(root, path); err != nil {
					return err
				}
				info, err := os.Stat(path)
				if err != nil {
					return err
				}
				if info.IsDir() {
					return check(path)
				}
			}
			if d.IsDir() {
				return nil
			}
			return boundedread.Check(path, manifest.MaxFileSize)
		})
	}
	return check(dir)
}
