package plugin

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/internal/gctune"
	"github.com/kubectl-workload/kubectl-workload/internal/progress"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
	"github.com/kubectl-workload/kubectl-workload/internal/safetext"
	"github.com/kubectl-workload/kubectl-workload/internal/version"
	"github.com/kubectl-workload/kubectl-workload/lint"
	"github.com/kubectl-workload/kubectl-workload/lint/report"
	"github.com/kubectl-workload/kubectl-workload/lint/userpolicy"
)

// LintOptions are the flags and inputs of `kubectl workload lint`.
type LintOptions struct {
	configFlags *genericclioptions.ConfigFlags

	Filenames        []string
	Output           string
	FailOn           string
	Verbose          bool
	Policies         []string
	PolicyNamespaces []string
	PolicyTimeout    time.Duration
	ListRules        bool
	Explain          string
	ConfigFile       string
	NoConfig         bool
	NoIgnore         bool
	Profile          string
	CRDs             []string
	PoliciesFrom     []string
	liveFlags
	renderFlags renderFlags

	settings *config.File

	paths     []string
	namespace string
	failOn    lint.Severity

	genericiooptions.IOStreams
}

// NewCmdLint builds `kubectl workload lint`.
func NewCmdLint(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &LintOptions{configFlags: configFlags, IOStreams: streams}
	cmd := &cobra.Command{
		Use:     "lint [PATH | -]... | lint --live [TYPE/NAME | TYPE NAME...]",
		Short:   "Check workload manifests for what the API server would reject, and more",
		Long:    help("lint"),
		Example: help("lint-example"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	cmd.Flags().StringSliceVarP(&o.Filenames, "filename", "f", nil, "file, directory or - to lint (repeatable; same as a positional argument)")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "text", "output format: "+strings.Join(report.Formats, ", "))
	cmd.Flags().StringVar(&o.FailOn, "fail-on", "error", "exit 1 when a finding is at or above this severity: error, warning or info")
	cmd.Flags().BoolVar(&o.Verbose, "verbose", false, "also name the documents skipped because they are not Kubernetes objects (-v is kubectl's log level)")
	cmd.Flags().StringArrayVar(&o.Policies, "policy", nil, "user Rego policy file or directory, conftest style (repeatable)")
	cmd.Flags().StringArrayVar(&o.PolicyNamespaces, "policy-namespace", nil,
		"Rego package whose deny/violation/warn rules are read (repeatable; default main; conftest's --namespace, renamed because -n/--namespace is kubectl's)")
	cmd.Flags().DurationVar(&o.PolicyTimeout, "policy-timeout", userpolicy.DefaultPolicyTimeout,
		"stop a user policy that takes longer than this on one object (the run then exits 2)")
	cmd.Flags().BoolVar(&o.ListRules, "list-rules", false, "list every rule with its severity and profile (default, or all for the opt-in rules) (-o json: as JSON), then exit")
	cmd.Flags().StringVar(&o.ConfigFile, "config", "", "configuration file (default: "+config.FileName+" in the current directory or the nearest parent, up to the git root)")
	cmd.Flags().BoolVar(&o.NoConfig, "no-config", false, "do not read a configuration file")
	cmd.Flags().BoolVar(&o.NoIgnore, "no-ignore-annotations", false, "disregard the objects' "+lint.AnnotationIgnore+" annotations")
	cmd.Flags().StringVar(&o.Profile, "profile", "", "rules to run: default (the rules on by default) or all (the opt-in rules too); overrides the configuration's profile")
	cmd.Flags().StringVar(&o.Explain, "explain", "", "print the documentation of a rule, then exit")
	cmd.Flags().StringArrayVar(&o.CRDs, "crds", nil, "CustomResourceDefinitions to check custom resources against: file, directory or chart (its crds/) (repeatable)")
	cmd.Flags().StringArrayVar(&o.PoliciesFrom, "policies-from", nil, "ValidatingAdmissionPolicies and bindings to evaluate on every object: file or directory (repeatable)")
	o.liveFlags.add(cmd)
	o.renderFlags.add(cmd)
	return cmd
}

// Complete gathers the paths and the namespace.
func (o *LintOptions) Complete(cmd *cobra.Command, args []string) error {
	o.paths = append(append([]string{}, o.Filenames...), args...)
	if o.Live {
		// --live takes kubectl get's TYPE/NAME arguments, not paths.
		o.paths, o.resourceArgs = append([]string{}, o.Filenames...), args
	}
	// Only an explicit -n counts: offline lint must not depend on whichever
	// kubeconfig context the machine happens to have.
	if f := cmd.Flags().Lookup("namespace"); f != nil && f.Changed && o.configFlags.Namespace != nil {
		o.namespace = *o.configFlags.Namespace
	}
	settings, err := config.Open(o.ConfigFile, o.NoConfig, ".")
	if err != nil {
		return err
	}
	o.settings = settings
	if cmd.Flags().Changed("profile") {
		if o.settings, err = o.settings.WithProfile(o.Profile); err != nil {
			return err
		}
	}
	failOn := o.FailOn
	if o.settings != nil && o.settings.FailOn != "" && !cmd.Flags().Changed("fail-on") {
		failOn = o.settings.FailOn
	}
	sev, err := lint.ParseSeverity(failOn)
	if err != nil {
		return fmt.Errorf("--fail-on: %w", err)
	}
	o.failOn = sev
	return nil
}

// Validate checks the flags.
func (o *LintOptions) Validate() error {
	if o.ListRules || o.Explain != "" {
		return report.CheckRulesOutput(o.ListRules, o.Explain, o.Output)
	}
	if o.PolicyTimeout <= 0 {
		return fmt.Errorf("--policy-timeout must be positive, got %s", o.PolicyTimeout)
	}
	if err := o.liveFlags.validate(o.paths); err != nil {
		return err
	}
	if len(o.paths) == 0 && !o.Live {
		return fmt.Errorf("no input: name files, directories or - for standard input")
	}
	if err := lint.ObjectRefHint(o.Live, o.paths); err != nil {
		return err
	}
	if err := helper.ValuesBesideChart(o.paths); err != nil {
		return err
	}
	if slices.Contains(report.Formats, o.Output) {
		return nil
	}
	return fmt.Errorf("unknown output format %q: want one of %s", o.Output, strings.Join(report.Formats, ", "))
}

// Run lints, prints, and returns an exitError for exit codes 1 and 2.
func (o *LintOptions) Run(cmd *cobra.Command) error {
	linter, err := lint.New(lint.Config{Policies: o.Policies, PolicyNamespaces: o.PolicyNamespaces,
		PolicyTimeout: o.PolicyTimeout})
	if err != nil {
		return err
	}
	if o.ListRules || o.Explain != "" {
		builtins, err := linter.Rules()
		if err != nil {
			return fmt.Errorf("built-in rules: %w", err)
		}
		if o.ListRules {
			return report.RuleList(o.Out, builtins, o.Output)
		}
		return report.Explain(o.Out, builtins, o.Explain)
	}
	warnings, err := linter.CheckSettings(o.settings)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(o.ErrOut, "warning: %s\n", safetext.Escape(w))
	}
	prog := progress.New(o.ErrOut, o.Output)
	req := lint.Request{Paths: o.paths, Stdin: o.In, Namespace: o.namespace, Settings: o.settings, NoIgnoreAnnotations: o.NoIgnore,
		CRDPaths: o.CRDs, PolicyPaths: o.PoliciesFrom, Live: o.Live, Resources: o.resourceArgs, AllNamespaces: o.AllNamespaces,
		AgainstLive: o.AgainstLive, BaseRef: o.BaseRef, Progress: func(done, total, objects int) {
			gctune.Progress(done, total) // the collector looks ahead to the run's peak
			prog.Files(done, total, objects)
		}}
	if o.Live || o.AgainstLive {
		if req.Cluster, err = liveClient(cmd.Context(), o.configFlags, o.ErrOut); err != nil {
			return err
		}
		req.Cluster.Progress = prog.Listing
		// Charts render as helm install renders them on this cluster.
		if o.renderFlags.opts.ClusterAPIVersions, err = req.Cluster.APIVersions(cmd.Context()); err != nil {
			fmt.Fprintf(o.ErrOut, "note: charts are rendered for the API versions of a v1.37 cluster: %v\n", err)
		}
	}
	req.Render = o.renderFlags.opts
	res, err := linter.Lint(cmd.Context(), req)
	prog.Done()
	if res != nil {
		for _, msg := range res.Notes {
			fmt.Fprintf(o.ErrOut, "note: %s\n", safetext.Escape(msg))
		}
	}
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(o.ErrOut, "warning: %s\n", safetext.Escape(w))
	}
	if o.Live && res.Objects == 0 && o.Output == "text" {
		fmt.Fprintf(o.Out, "no workloads found (%s)\n", res.Scope)
		return nil
	}
	// The rules compiled while the inputs loaded; an engine that failed to
	// build failed the run's evaluations, which res reports.
	builtins, err := linter.Rules()
	if err != nil && len(res.Errors) == 0 {
		return fmt.Errorf("built-in rules: %w", err)
	}
	if err := report.WriteOptions(o.Out, o.Output, res, builtins, version.Get().Kubernetes, report.Options{Verbose: o.Verbose, FailOn: o.failOn}); err != nil {
		return err
	}
	if o.Verbose {
		if err := report.Skipped(o.ErrOut, res); err != nil {
			return err
		}
	}
	for _, err := range res.Errors {
		fmt.Fprintf(o.ErrOut, "error: %s\n", safetext.Escape(err.Error()))
	}
	switch {
	case len(res.Errors) > 0:
		return &exitError{code: ExitError}
	case res.Fails(o.failOn):
		return &exitError{code: ExitFindings}
	}
	return nil
}
