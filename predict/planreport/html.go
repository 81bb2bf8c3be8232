package planreport

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// controllersText names the controllers whose arithmetic the predictions use, by the kinds
// predicted: "the Deployment controller's arithmetic", "the StatefulSet and DaemonSet
// controllers' arithmetic"; a scale-down is the ReplicaSet controller's choice of pods.
func controllersText(res *runner.Result) string {
	seen := map[string]bool{}
	var kinds []string
	for _, p := range res.Predictions {
		kind := p.Kind
		if p.ScaleDown != nil {
			kind = "ReplicaSet"
		}
		if kind != "" && !seen[kind] {
			seen[kind] = true
			kinds = append(kinds, kind)
		}
	}
	sort.Strings(kinds)
	switch len(kinds) {
	case 0:
		return "the controllers' arithmetic"
	case 1:
		return "the " + kinds[0] + " controller's arithmetic"
	}
	return "the " + strings.Join(kinds[:len(kinds)-1], ", ") + " and " + kinds[len(kinds)-1] + " controllers' arithmetic"
}

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
<p>Simulated with %s of Kubernetes %s.</p>
%s
<pre>%s</pre>
</body>
</html>
`, html.EscapeString(controllersText(res)), html.EscapeString(kubernetesVersion), svg.String(), html.EscapeString(text.String()))
	return err
}
