package lint

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// Request is what `kubectl workload lint` asks for, as plain values: the
// inputs, what their baseline is read from (the cluster, a git revision) and
// how their charts and kustomizations render.
type Request struct {
	// Paths are files, directories and "-" (Stdin).
	Paths []string
	Stdin io.Reader
	// Namespace is an explicit -n, else empty.
	Namespace string
	// Settings is the configuration file; nil for none.
	Settings            *config.File
	NoIgnoreAnnotations bool
	// CRDPaths and PolicyPaths are Options.CRDPaths and Options.PolicyPaths.
	CRDPaths, PolicyPaths []string
	// Live, Resources, AllNamespaces, AgainstLive and BaseRef name the
	// baseline (Source); Cluster is the cluster's client for Live and
	// AgainstLive.
	Live          bool
	Resources     []string
	AllNamespaces bool
	AgainstLive   bool
	BaseRef       string
	Cluster       *live.Client
	// Render are the renderer's options (helm template's flags); Lint sets
	// the namespace of each renderer it makes.
	Render helper.Options
	// Progress is Options.Progress.
	Progress func(done, total, objects int)
}

// Lint lints what req names: it reads the baseline first when req names one
// (ReadBaseline; standard input is then read once, before), renders the
// charts and kustomizations in the namespace the baseline resolved, and runs
// the linter. Findings and input problems are in the Result; the error is a
// failure to read the baseline or to build a renderer. With an error, the
// Result, when not nil, holds the notes taken before it.
func (l *Linter) Lint(ctx context.Context, req Request) (*Result, error) {
	var notes []string
	var baseline *Baseline
	namespace, stdin := req.Namespace, req.Stdin
	if req.Live || req.AgainstLive || req.BaseRef != "" {
		// Standard input is read once: the baseline needs the objects first.
		var data []byte
		if slices.Contains(req.Paths, "-") {
			var err error
			if data, err = io.ReadAll(req.Stdin); err != nil {
				return nil, fmt.Errorf("read standard input: %w", err)
			}
		}
		src := Source{Live: req.Live, Resources: req.Resources, AllNamespaces: req.AllNamespaces, AgainstLive: req.AgainstLive,
			BaseRef: req.BaseRef, Paths: req.Paths, Stdin: data, Namespace: req.Namespace, Cluster: req.Cluster,
			Notes: func(msg string) { notes = append(notes, msg) }}
		baseRenderer, err := newRenderer(req.Render, req.Namespace)
		if err != nil {
			return nil, err
		}
		defer baseRenderer.Close()
		src.Renderer = baseRenderer
		if baseline, namespace, err = ReadBaseline(ctx, src); err != nil {
			return &Result{Notes: notes}, err
		}
		stdin = bytes.NewReader(data)
	}
	renderer, err := newRenderer(req.Render, namespace)
	if err != nil {
		return &Result{Notes: notes}, err
	}
	defer renderer.Close()
	res := l.Run(ctx, Options{Paths: req.Paths, Stdin: stdin, Namespace: namespace, Renderer: renderer,
		Settings: req.Settings, NoIgnoreAnnotations: req.NoIgnoreAnnotations, Baseline: baseline,
		CRDPaths: req.CRDPaths, PolicyPaths: req.PolicyPaths, Progress: req.Progress})
	res.Notes = notes
	if baseline != nil {
		res.Scope = baseline.Scope
	}
	return res, nil
}

// newRenderer is the renderer of opts rendering charts into namespace
// (.Release.Namespace; default when empty).
func newRenderer(opts helper.Options, namespace string) (*helper.Renderer, error) {
	opts.Namespace = namespace
	return helper.New(opts)
}
