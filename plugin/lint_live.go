package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-workload/kubectl-workload/live"
)

// liveFlags are lint's cluster and git flags.
type liveFlags struct {
	Live          bool
	AllNamespaces bool
	AgainstLive   bool
	BaseRef       string

	// resourceArgs are the TYPE/NAME arguments of --live.
	resourceArgs []string
}

func (f *liveFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.Live, "live", false,
		"lint the workloads in the cluster (the kubeconfig's context) instead of files; arguments are then TYPE/NAME or TYPE NAME..., as for kubectl get")
	cmd.Flags().BoolVarP(&f.AllNamespaces, "all-namespaces", "A", false, "with --live: every namespace, not only -n or the context's")
	cmd.Flags().BoolVar(&f.AgainstLive, "against-live", false,
		"check each file's objects as updates of the cluster's objects of the same name (immutable fields), and lint them with the cluster's objects around them")
	cmd.Flags().StringVar(&f.BaseRef, "base-ref", "",
		"check each file's objects as updates of the same objects in that file at this git revision (immutable fields, offline)")
}

// validate checks the flags' combinations.
func (f *liveFlags) validate(paths []string) error {
	switch {
	case f.Live && f.AgainstLive:
		return errors.New("--live and --against-live contradict each other: --live lints the cluster, --against-live lints files against it")
	case f.Live && f.BaseRef != "":
		return errors.New("--base-ref compares files with a git revision; it does not apply to --live")
	case f.AgainstLive && f.BaseRef != "":
		return errors.New("--against-live and --base-ref each name what the files are compared with: give one")
	case f.AllNamespaces && !f.Live:
		return errors.New("-A/--all-namespaces applies to --live only")
	case f.Live && len(paths) > 0:
		return fmt.Errorf("--live reads the cluster, not files: drop -f %s", strings.Join(paths, " "))
	case (f.AgainstLive || f.BaseRef != "") && len(paths) == 0:
		return errors.New("no input: name the files to check")
	}
	return nil
}

// liveClient builds the cluster client from the process's one ConfigFlags
// and asks the server its version, writing one warning to errOut when its
// minor version is not the embedded v1.37. Errors are one line that names
// the context.
func liveClient(ctx context.Context, getter genericclioptions.RESTClientGetter, errOut io.Writer) (*live.Client, error) {
	c, err := live.New(getter)
	if err != nil {
		return nil, err
	}
	info, err := c.ServerVersion(ctx)
	if err != nil {
		return nil, err
	}
	if w := live.SkewWarning(info); w != "" {
		fmt.Fprintf(errOut, "warning: %s\n", w)
	}
	return c, nil
}
