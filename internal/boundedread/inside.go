package boundedread

import (
	"fmt"
	"path/filepath"
	"strings"
)

// OutsideError is the error for a path under a root (a chart, a policy
// directory) that a symbolic link leads out of.
type OutsideError struct {
	Name, Target, Root string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%s is a symbolic link to %s, outside %s; it is not followed", e.Name, e.Target, e.Root)
}

// Inside returns an *OutsideError when name, with every symbolic link
// resolved, is not root or below it (root's own links resolved too), and the
// error resolving either path otherwise.
func Inside(root, name string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return err
	}
	target, err := filepath.EvalSymlinks(name)
	if err != nil {
		return err
	}
	if target, err = filepath.Abs(target); err != nil {
		return err
	}
	rel, err := filepath.Rel(realRoot, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return &OutsideError{Name: name, Target: target, Root: root}
	}
	return nil
}
