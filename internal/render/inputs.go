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
// leading out of it, or a file helm would read that is not a regular file
// (a FIFO would hang helm's loader, /dev/zero fill memory) or is larger than
// manifest.MaxFileSize. helm's loader follows symbolic links wherever they
// lead (pkg/chart/loader, sympath.Walk), and a template may print a file's
// content ({{ .Files.Get }}), so a link out of the chart would put a file of
// the machine running lint into a finding. The first problem is returned,
// naming the file.
func checkChartFiles(dir string) error {
	// The separator makes a root that is itself a link be walked.
	return filepath.WalkDir(dir+string(filepath.Separator), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if err := boundedread.Inside(dir, path); err != nil {
				return err
			}
			info, err := os.Stat(path)
			if err != nil {
				return err
			}
			if info.IsDir() {
				return nil // walked where it lies, inside the chart
			}
		}
		if d.IsDir() {
			return nil
		}
		return boundedread.Check(path, manifest.MaxFileSize)
	})
}
