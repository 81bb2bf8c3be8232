package report

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// HTML writes a self-contained page: the SVG timeline, then each prediction's text report.
func HTML(w io.Writer, res *runner.Result, kubernetesVersion string) error {
	svg := &strings.Builder{}
	if err := SVG(svg, res); err != nil {
		return err
	}
	text := &strings.Builder{}
	if err := Text(text, res, false); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>kubectl workload predict</title>
<style>body{font-family:sans-serif;margin:2em} pre{background:#f6f8fa;padding:1em;overflow-x:auto}</style>
</head>
<body>
<h1>Rollout prediction</h1>
<p>Simulated with the Deployment controller's arithmetic of Kubernetes %s.</p>
%s
<pre>%s</pre>
</body>
</html>
`, html.EscapeString(kubernetesVersion), svg.String(), html.EscapeString(text.String()))
	return err
}
