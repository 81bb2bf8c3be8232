// Package loglevel is the value of kubectl's -v/--v flag: the log verbosity of
// the Kubernetes client libraries (klog), so that `kubectl workload lint --live
// -v=6` logs the API requests as `kubectl get -v=6` does. It is a level, as
// in kubectl, not a switch. The plugin binds the flag (plugin/root.go).
package loglevel

import (
	"flag"
	"fmt"
	"io"
	"strconv"

	"k8s.io/klog/v2"
)

// Flag is the flag's name and shorthand: -v=6, --v=6.
const Flag = "v"

// Usage is the flag's help.
const Usage = "kubectl's log level for the Kubernetes client (6 logs the API requests, 8 their bodies); for lint's skipped documents use --verbose"

// Level is the value of -v (a pflag.Value). Its Set rejects what is not a
// level with a message that points a user who meant --verbose at it.
type Level int

// Set parses a level: a number, 0 or more.
func (l *Level) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("-v is kubectl's log level, a number such as -v=6; to name the skipped documents use --verbose")
	}
	*l = Level(n)
	return nil
}

// String is the level as a number.
func (l *Level) String() string { return strconv.Itoa(int(*l)) }

// Type is what help shows: kubectl's help shows "Level".
func (l *Level) Type() string { return "Level" }

// Apply sets klog's verbosity to l and sends its output to errOut. klog
// writes to the process's standard error otherwise, and errors to it as
// well: stderrthreshold keeps those in errOut only.
func (l Level) Apply(errOut io.Writer) error {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for _, kv := range [][2]string{{"v", l.String()}, {"logtostderr", "false"}, {"alsologtostderr", "false"}, {"stderrthreshold", "FATAL"}} {
		if err := fs.Set(kv[0], kv[1]); err != nil {
			return fmt.Errorf("-v: set klog's %s: %w", kv[0], err)
		}
	}
	klog.SetOutput(errOut)
	return nil
}
