package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/safetext"
	"github.com/kubectl-workload/kubectl-workload/lint"
)

// githubCommand maps a severity to the GitHub Actions workflow command that
// annotates a file with it.
func githubCommand(s lint.Severity) string {
	switch s {
	case lint.SeverityError:
		return "error"
	case lint.SeverityWarning:
		return "warning"
	default:
		return "notice"
	}
}

// githubData escapes a workflow command's message as the Actions runner
// unescapes it: % first, so that the escapes themselves survive.
var githubData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")

// githubProperty escapes a workflow command's property value, where : and ,
// would also end the value.
var githubProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

// escapeLines is safetext.Escape of each line of s, the newlines kept.
func escapeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = safetext.Escape(l)
	}
	return strings.Join(lines, "\n")
}

// GitHub writes one GitHub Actions workflow command per unsuppressed finding,
//
//	::error file=F,line=L,col=C,title=RULE::MESSAGE (Kind namespace/name)
//
// (::warning for warnings, ::notice for infos), which the Actions runner turns
// into annotations on the pull request's files, then the plain summary line.
// Suppressed findings are left out; they are counted in the summary.
func GitHub(w io.Writer, res *lint.Result) error { return gitHub(w, res, Options{}) }

func gitHub(w io.Writer, res *lint.Result, opts Options) error {
	var b strings.Builder
	for _, f := range res.Findings {
		if f.Suppressed != nil {
			continue
		}
		msg := f.Message
		if f.Object != nil {
			msg += " (" + f.Object.String() + ")"
		}
		// Control characters (ESC among them) are shown as escapes
		// (safetext), but for the message's newlines, which the runner's own
		// escape (%0A) keeps inside the annotation.
		fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", githubCommand(f.Severity),
			githubProperty.Replace(safetext.Escape(f.File)), f.Line, f.Column, githubProperty.Replace(safetext.Escape(f.Rule)),
			githubData.Replace(escapeLines(msg)))
	}
	b.WriteString(safetext.Line(summary(res, opts)))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}
