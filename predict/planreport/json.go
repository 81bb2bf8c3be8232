package planreport

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// SchemaVersion is the version of the -o json/yaml schema (docs/predict-output.md). Fields are
// only ever added within a version.
const SchemaVersion = 1

type doc struct {
	SchemaVersion     int          `json:"schemaVersion"`
	KubernetesVersion string       `json:"kubernetesVersion"`
	Predictions       []prediction `json:"predictions"`
	Skipped           []skipped    `json:"skipped"`
	Problems          []problem    `json:"problems"`
}

type position struct {
	File     string `json:"file,omitempty"`
	Document int    `json:"document"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
}

type prediction struct {
	position
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Baseline  string `json:"baseline,omitempty"`
	// Autoscaler is set when a HorizontalPodAutoscaler owns the replica count.
	Autoscaler *autoscaler `json:"autoscaler,omitempty"`
	Rejected   []rejection `json:"rejected"`
	Timing     *timing     `json:"timing,omitempty"`
	Plan       *plan       `json:"plan,omitempty"`
	// Distribution is set with --ready-spread and --runs.
	Distribution *distribution `json:"distribution,omitempty"`
	// Schedule, Job and ScaleDown are set for CronJobs, Jobs, and ReplicaSets or
	// ReplicationControllers (cronjob.go, job.go, scaledown.go).
	Schedule  *scheduleDoc  `json:"schedule,omitempty"`
	Job       *jobDoc       `json:"job,omitempty"`
	ScaleDown *scaleDownDoc `json:"scaleDown,omitempty"`
}

// autoscaler is runner.Autoscaler: the HorizontalPodAutoscaler whose scaleTargetRef names the
// workload, and the replica count the plan runs at (replicas) with where it comes from (basis:
// "current", "minReplicas", "manifest" or "--replicas").
type autoscaler struct {
	Name            string   `json:"name"`
	Source          string   `json:"source"`
	MinReplicas     int32    `json:"minReplicas"`
	MaxReplicas     int32    `json:"maxReplicas"`
	CurrentReplicas *int32   `json:"currentReplicas,omitempty"`
	Replicas        int32    `json:"replicas"`
	Basis           string   `json:"basis"`
	Others          []string `json:"others,omitempty"`
	Message         string   `json:"message"`
}

type rejection struct {
	Rule    string `json:"rule"`
	Field   string `json:"field"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

// distribution is kernel.Distribution: --runs N spread runs of the plan.
type distribution struct {
	Runs                 int     `json:"runs"`
	Seed                 uint64  `json:"seed"`
	ReadySpreadSeconds   float64 `json:"readySpreadSeconds"`
	Completed            int     `json:"completed"`
	CompletionP50Seconds float64 `json:"completionP50Seconds"`
	CompletionP95Seconds float64 `json:"completionP95Seconds"`
	PeakPods             int32   `json:"peakPods"`
	MinAvailable         int32   `json:"minAvailable"`
	// Sequences counts the distinct step sequences; MostCommon is the first of AllSequences.
	Sequences      int      `json:"sequences"`
	PlanRuns       int      `json:"planRuns"`
	MostCommon     []string `json:"mostCommon"`
	MostCommonRuns int      `json:"mostCommonRuns"`
	// AllSequences are every distinct step sequence with its count, the most frequent first.
	AllSequences []sequenceCount `json:"allSequences"`
}

// sequenceCount is kernel.SequenceCount: one distinct step sequence and how many runs took it.
type sequenceCount struct {
	Runs  int      `json:"runs"`
	Plan  bool     `json:"plan,omitempty"`
	Steps []string `json:"steps"`
}

func toDistribution(d *kernel.Distribution) *distribution {
	if d == nil {
		return nil
	}
	out := &distribution{Runs: d.Runs, Seed: d.Seed, ReadySpreadSeconds: secs(d.Spread), Completed: d.Completed,
		CompletionP50Seconds: secs(d.CompletionP50), CompletionP95Seconds: secs(d.CompletionP95), PeakPods: d.PeakPods,
		MinAvailable: d.MinAvailable, Sequences: len(d.Sequences), PlanRuns: d.DeterministicRuns, MostCommon: []string{},
		AllSequences: []sequenceCount{}}
	for _, sc := range d.Sequences {
		out.AllSequences = append(out.AllSequences, sequenceCount{Runs: sc.Runs, Plan: sc.Plan, Steps: append([]string{}, sc.Steps...)})
	}
	if len(d.Sequences) > 0 {
		out.MostCommon, out.MostCommonRuns = out.AllSequences[0].Steps, out.AllSequences[0].Runs
	}
	return out
}

type timing struct {
	ReadyAfterSeconds     float64 `json:"readyAfterSeconds"`
	ReadySource           string  `json:"readySource"`
	TerminateAfterSeconds float64 `json:"terminateAfterSeconds"`
	TerminateSource       string  `json:"terminateSource"`
	FailNew               bool    `json:"failNew"`
	// PodSecurityRefusal is why the namespace refuses every new pod, when it does.
	PodSecurityRefusal string `json:"podSecurityRefusal,omitempty"`
}

type setting struct {
	Name       string `json:"name"`
	Value      string `json:"value"`
	Arithmetic string `json:"arithmetic"`
}

type header struct {
	Strategy      string    `json:"strategy"`
	Replicas      int32     `json:"replicas"`
	Settings      []setting `json:"settings"`
	OldRevision   string    `json:"oldRevision"`
	NewRevision   string    `json:"newRevision"`
	NewReplicaSet string    `json:"newReplicaSet"`
	NameNote      string    `json:"nameNote"`
	MaxPods       int32     `json:"maxPods"`
	MinAvailable  int32     `json:"minAvailable"`
}

type size struct {
	Name      string `json:"name"`
	Replicas  int32  `json:"replicas"`
	Pods      int32  `json:"pods"`
	Available int32  `json:"available"`
}

type step struct {
	AtSeconds   float64 `json:"atSeconds"`
	Reason      string  `json:"reason"`
	Message     string  `json:"message"`
	ReplicaSets []size  `json:"replicaSets"`
	Pods        int32   `json:"pods"`
	Available   int32   `json:"available"`
}

type summary struct {
	Completed             bool    `json:"completed"`
	DurationSeconds       float64 `json:"durationSeconds"`
	StallReason           string  `json:"stallReason,omitempty"`
	PeakPods              int32   `json:"peakPods"`
	MinAvailable          int32   `json:"minAvailable"`
	DeadlineExceeded      bool    `json:"deadlineExceeded"`
	DeadlineAtSeconds     float64 `json:"deadlineAtSeconds,omitempty"`
	LastProgressAtSeconds float64 `json:"lastProgressAtSeconds,omitempty"`
	WaitsForDeletion      bool    `json:"waitsForDeletion,omitempty"`
}

type plan struct {
	Header  header   `json:"header"`
	Steps   []step   `json:"steps"`
	Notes   []string `json:"notes"`
	Summary summary  `json:"summary"`
}

type skipped struct {
	position
	Object string `json:"object"`
	Reason string `json:"reason"`
}

type problem struct {
	position
	Message string `json:"message"`
}

func secs(d time.Duration) float64 { return d.Seconds() }

func toDoc(res *runner.Result, kubernetesVersion string) doc {
	out := doc{SchemaVersion: SchemaVersion, KubernetesVersion: kubernetesVersion,
		Predictions: []prediction{}, Skipped: []skipped{}, Problems: []problem{}}
	for _, p := range res.Predictions {
		jp := prediction{
			position: position{File: p.File, Document: p.Document, Line: p.Pos.Line, Column: p.Pos.Column},
			Kind:     p.Kind, Namespace: p.Namespace, Name: p.Name, Baseline: p.Baseline, Rejected: []rejection{},
		}
		if a := p.Autoscaler; a != nil {
			jp.Autoscaler = &autoscaler{Name: a.Name, Source: a.Source, MinReplicas: a.MinReplicas, MaxReplicas: a.MaxReplicas,
				CurrentReplicas: a.CurrentReplicas, Replicas: a.Replicas, Basis: a.Basis, Others: a.Others, Message: a.Describe()}
		}
		for _, r := range p.Rejected {
			jp.Rejected = append(jp.Rejected, rejection{Rule: r.Rule, Field: r.Field, Message: r.Message, Line: r.Pos.Line, Column: r.Pos.Column})
		}
		if p.Plan != nil {
			jp.Timing = &timing{ReadyAfterSeconds: secs(p.Timing.ReadyAfter), ReadySource: p.Timing.ReadySource,
				TerminateAfterSeconds: secs(p.Timing.TerminateAfter), TerminateSource: p.Timing.TerminateSource, FailNew: p.Timing.FailNew}
			if r := p.Timing.Refused; r != nil {
				jp.Timing.PodSecurityRefusal = fmt.Sprintf("namespace %s (enforce=%s): %s", r.Namespace, r.Level, r.Reason)
			}
			jp.Plan = toPlan(p.Plan)
			jp.Distribution = toDistribution(p.Distribution)
		}
		jp.Schedule, jp.Job, jp.ScaleDown = toSchedule(p.Schedule), toJob(p.Job), toScaleDown(p.ScaleDown)
		out.Predictions = append(out.Predictions, jp)
	}
	for _, s := range res.Skipped {
		out.Skipped = append(out.Skipped, skipped{position: position{File: s.File, Document: s.Document, Line: s.Pos.Line, Column: s.Pos.Column},
			Object: s.Ref, Reason: s.Reason})
	}
	for _, p := range res.Problems {
		out.Problems = append(out.Problems, problem{position: position{File: p.File, Document: p.Document, Line: p.Pos.Line, Column: p.Pos.Column},
			Message: p.Message})
	}
	return out
}

func toPlan(p *kernel.Plan) *plan {
	h := p.Header
	jp := &plan{
		Header: header{Strategy: h.Strategy, Replicas: h.Replicas, Settings: []setting{}, OldRevision: h.OldRevision, NewRevision: h.NewRevision,
			NewReplicaSet: p.TargetRevision, NameNote: h.NameNote, MaxPods: h.MaxPods, MinAvailable: h.MinAvailable},
		Steps: []step{}, Notes: append([]string{}, p.Notes...),
		Summary: summary{Completed: p.Summary.Completed, DurationSeconds: secs(p.Summary.Duration), StallReason: p.Summary.StallReason,
			PeakPods: p.Summary.PeakPods, MinAvailable: p.Summary.MinAvailable, DeadlineExceeded: p.Summary.DeadlineExceeded,
			DeadlineAtSeconds: secs(p.Summary.DeadlineAt), LastProgressAtSeconds: secs(p.Summary.LastProgressAt),
			WaitsForDeletion: p.Summary.WaitsForDeletion},
	}
	for _, s := range h.Settings {
		jp.Header.Settings = append(jp.Header.Settings, setting(s))
	}
	for _, s := range p.Steps {
		js := step{AtSeconds: secs(s.At), Reason: s.Reason, Message: s.Message, ReplicaSets: []size{}, Pods: s.Pods, Available: s.Available}
		for _, r := range s.Revisions {
			js.ReplicaSets = append(js.ReplicaSets, size{Name: r.Name, Replicas: r.Replicas, Pods: r.Pods, Available: r.Available})
		}
		jp.Steps = append(jp.Steps, js)
	}
	return jp
}

// JSON writes res as one JSON document (schema: docs/predict-output.md).
func JSON(w io.Writer, res *runner.Result, kubernetesVersion string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(toDoc(res, kubernetesVersion)); err != nil {
		return fmt.Errorf("encode plan: %w", err)
	}
	return nil
}
