// Command realworld-review measures the default rules of one or more
// kubectl-workload binaries on a real-world corpus (test/realworld2) against
// a reviewer's verdicts, and writes the review as Markdown.
//
//	go run ./hack/realworld-review -corpus test/realworld2 \
//	    -bin before=/tmp/kw-main [-bin after=/tmp/kw-new]... >docs/realworld2-review.md
//
// Each rendered input (rendered/NAME.yaml) is linted on its own with the
// default flags and -o json, as a user lints one install. A finding is
// distinct by input, rule, object and message (not position). Every distinct
// finding of the first binary must match a row of review.tsv (rule, input
// pattern, message pattern, verdict, why; the first matching row wins), else
// the command fails naming the unreviewed findings. Findings of later
// binaries that no row matches are counted as unreviewed. split.txt puts
// each input in the tuning or the held-out half.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// everyFinding selects the list of findings instead of the tables.
var everyFinding bool

type binFlag []string

func (b *binFlag) String() string     { return strings.Join(*b, ",") }
func (b *binFlag) Set(v string) error { *b = append(*b, v); return nil }

type finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Line     int    `json:"line"`
	Object   *struct {
		Kind      string `json:"kind"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"object"`
}

// key is a distinct finding.
type key struct {
	Input, Rule, Severity, Object, Message string
}

type reviewRow struct {
	Rule    string
	Input   *regexp.Regexp
	Message *regexp.Regexp
	Verdict string
	Why     string
	line    int
}

func main() {
	var bins binFlag
	corpus := flag.String("corpus", "test/realworld2", "the corpus directory (rendered/, split.txt, review.tsv)")
	flag.Var(&bins, "bin", "LABEL=PATH of a kubectl-workload binary; the first is the one reviewed (repeatable)")
	list := flag.Bool("unreviewed", false, "list the first binary's unreviewed findings as review.tsv rows and exit")
	flag.BoolVar(&everyFinding, "findings", false, "write the list of every distinct finding with its verdict instead of the tables")
	flag.Parse()
	if err := run(os.Stdout, *corpus, bins, *list); err != nil {
		fmt.Fprintf(os.Stderr, "realworld-review: %v\n", err)
		os.Exit(1)
	}
}

func run(w io.Writer, corpus string, bins []string, list bool) error {
	if len(bins) == 0 {
		return errors.New("need at least one -bin LABEL=PATH")
	}
	half, order, err := readSplit(filepath.Join(corpus, "split.txt"))
	if err != nil {
		return err
	}
	rows, err := readReview(filepath.Join(corpus, "review.tsv"))
	if err != nil {
		return err
	}
	var labels []string
	results := map[string]map[key]int{} // label -> distinct finding -> occurrences
	for _, b := range bins {
		label, path, ok := strings.Cut(b, "=")
		if !ok {
			return fmt.Errorf("-bin %q: want LABEL=PATH", b)
		}
		labels = append(labels, label)
		found := map[key]int{}
		for _, in := range order {
			if _, err := os.Stat(filepath.Join(corpus, "rendered", in+".yaml")); err != nil {
				continue // not rendered: hack/update-realworld.sh skipped it
			}
			fs, err := lint(path, filepath.Join(corpus, "rendered", in+".yaml"))
			if err != nil {
				return fmt.Errorf("%s on %s: %w", label, in, err)
			}
			for _, f := range fs {
				obj := ""
				if f.Object != nil {
					obj = f.Object.Kind + "/" + f.Object.Name
				}
				found[key{in, f.Rule, f.Severity, obj, oneLine(f.Message)}]++
			}
		}
		results[label] = found
	}
	verdictOf := func(k key) *reviewRow {
		for i := range rows {
			r := &rows[i]
			if r.Rule == k.Rule && r.Input.MatchString(k.Input) && r.Message.MatchString(k.Object+" "+k.Message) {
				return r
			}
		}
		return nil
	}
	first := results[labels[0]]
	var missing []key
	for k := range first {
		if verdictOf(k) == nil {
			missing = append(missing, k)
		}
	}
	sortKeys(missing)
	if list {
		for _, k := range missing {
			fmt.Fprintf(w, "%s\t^%s$\t%s\t?\t%s\n", k.Rule, regexp.QuoteMeta(k.Input), regexp.QuoteMeta(k.Object), k.Message)
		}
		return nil
	}
	if len(missing) > 0 {
		return fmt.Errorf("%d distinct findings of %s have no review row (run with -unreviewed)", len(missing), labels[0])
	}
	return report(w, corpus, labels, results, half, order, verdictOf)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func sortKeys(ks []key) {
	slices.SortFunc(ks, func(a, b key) int {
		return strings.Compare(a.Input+"\x00"+a.Rule+"\x00"+a.Object+"\x00"+a.Message, b.Input+"\x00"+b.Rule+"\x00"+b.Object+"\x00"+b.Message)
	})
}

// lint runs bin on file with the default flags; exit 1 means findings.
func lint(bin, file string) ([]finding, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, "lint", "-o", "json", file)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(errb.String()))
	}
	var doc struct {
		Findings []finding `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		return nil, fmt.Errorf("reading its JSON: %w", err)
	}
	return doc.Findings, nil
}

func readSplit(path string) (map[string]string, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	half := map[string]string{}
	var order []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 3 || (fs[2] != "tuning" && fs[2] != "held-out") {
			return nil, nil, fmt.Errorf("%s:%d: want NAME FAMILY tuning|held-out", path, n)
		}
		half[fs[0]] = fs[2]
		order = append(order, fs[0])
	}
	return half, order, sc.Err()
}

func readReview(path string) ([]reviewRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []reviewRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Split(line, "\t")
		if len(fs) != 5 {
			return nil, fmt.Errorf("%s:%d: want 5 tab-separated fields, have %d", path, n, len(fs))
		}
		in, err := regexp.Compile(fs[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: input: %w", path, n, err)
		}
		msg, err := regexp.Compile(fs[2])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: message: %w", path, n, err)
		}
		switch fs[3] {
		case "true", "false", "debatable":
		default:
			return nil, fmt.Errorf("%s:%d: verdict %q: want true, false or debatable", path, n, fs[3])
		}
		rows = append(rows, reviewRow{Rule: fs[0], Input: in, Message: msg, Verdict: fs[3], Why: fs[4], line: n})
	}
	return rows, sc.Err()
}

type tally struct{ findings, distinct, t, f, d, unreviewed int }

func (t tally) precision() string {
	n := t.t + t.f + t.d
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", (100*t.t+n/2)/n)
}

func report(w io.Writer, corpus string, labels []string, results map[string]map[key]int, half map[string]string, order []string,
	verdictOf func(key) *reviewRow) error {
	type rk struct{ rule, sev string }
	counts := map[string]map[string]map[rk]*tally{} // label -> half -> rule
	var ruleKeys []rk
	seen := map[rk]bool{}
	for _, label := range labels {
		counts[label] = map[string]map[rk]*tally{"tuning": {}, "held-out": {}}
		for k, n := range results[label] {
			r := rk{k.Rule, k.Severity}
			if !seen[r] {
				seen[r] = true
				ruleKeys = append(ruleKeys, r)
			}
			h := counts[label][half[k.Input]]
			t := h[r]
			if t == nil {
				t = &tally{}
				h[r] = t
			}
			t.findings += n
			t.distinct++
			switch v := verdictOf(k); {
			case v == nil:
				t.unreviewed++
			case v.Verdict == "true":
				t.t++
			case v.Verdict == "false":
				t.f++
			default:
				t.d++
			}
		}
	}
	sevRank := map[string]int{"error": 0, "warning": 1, "info": 2}
	slices.SortFunc(ruleKeys, func(a, b rk) int {
		if sevRank[a.sev] != sevRank[b.sev] {
			return sevRank[a.sev] - sevRank[b.sev]
		}
		return strings.Compare(a.rule, b.rule)
	})
	get := func(label, h string, r rk) tally {
		if t := counts[label][h][r]; t != nil {
			return *t
		}
		return tally{}
	}
	base := labels[0]
	var absent []string
	for _, in := range order {
		if _, err := os.Stat(filepath.Join(corpus, "rendered", in+".yaml")); err != nil {
			absent = append(absent, in+" ("+half[in]+")")
		}
	}
	if everyFinding {
		return findingList(w, labels[0], results[labels[0]], half, order, verdictOf)
	}
	fmt.Fprintf(w, "Inputs linted: %d of %d in split.txt; not rendered (the renderer refused them): %s.\n\n",
		len(order)-len(absent), len(order), strings.Join(absent, ", "))
	fmt.Fprintf(w, "### Per rule, %s (reviewed binary)\n\n", base)
	fmt.Fprintln(w, "Distinct findings (input, rule, object, message) and their verdicts: true / false / debatable; precision = true / (true + false + debatable).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| rule | severity | tuning: findings / distinct | tuning: T / F / D | tuning precision | held-out: findings / distinct | held-out: T / F / D | held-out precision |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	var tot [2]tally
	var warn [2]tally
	for _, r := range ruleKeys {
		a, b := get(base, "tuning", r), get(base, "held-out", r)
		if a.distinct+b.distinct == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %d / %d | %d / %d / %d | %s | %d / %d | %d / %d / %d | %s |\n", r.rule, r.sev,
			a.findings, a.distinct, a.t, a.f, a.d, a.precision(), b.findings, b.distinct, b.t, b.f, b.d, b.precision())
		for i, t := range []tally{a, b} {
			add(&tot[i], t)
			if r.sev != "info" {
				add(&warn[i], t)
			}
		}
	}
	fmt.Fprintf(w, "| **all** | | %d / %d | %d / %d / %d | %s | %d / %d | %d / %d / %d | %s |\n",
		tot[0].findings, tot[0].distinct, tot[0].t, tot[0].f, tot[0].d, tot[0].precision(),
		tot[1].findings, tot[1].distinct, tot[1].t, tot[1].f, tot[1].d, tot[1].precision())
	fmt.Fprintf(w, "| **warning and error** | | %d / %d | %d / %d / %d | %s | %d / %d | %d / %d / %d | %s |\n",
		warn[0].findings, warn[0].distinct, warn[0].t, warn[0].f, warn[0].d, warn[0].precision(),
		warn[1].findings, warn[1].distinct, warn[1].t, warn[1].f, warn[1].d, warn[1].precision())
	if len(labels) > 1 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "### Before and after: distinct findings per rule")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Each cell: tuning / held-out distinct findings, then the verdicts of those the review covers (T/F/D) and how many it does not (new messages).")
		fmt.Fprintln(w)
		hdr := "| rule | severity |"
		sep := "|---|---|"
		for _, l := range labels {
			hdr += " " + l + " |"
			sep += "---|"
		}
		fmt.Fprintln(w, hdr)
		fmt.Fprintln(w, sep)
		for _, r := range ruleKeys {
			line := fmt.Sprintf("| %s | %s |", r.rule, r.sev)
			for _, l := range labels {
				a, b := get(l, "tuning", r), get(l, "held-out", r)
				if a.distinct+b.distinct == 0 {
					line += " - |"
					continue
				}
				line += fmt.Sprintf(" %d / %d (T/F/D %d/%d/%d; %d/%d/%d%s) |", a.distinct, b.distinct, a.t, a.f, a.d, b.t, b.f, b.d, unrev(a, b))
			}
			fmt.Fprintln(w, line)
		}
		line := "| **warning and error, precision tuning / held-out** | |"
		for _, l := range labels {
			var ws [2]tally
			for _, r := range ruleKeys {
				if r.sev == "info" {
					continue
				}
				add(&ws[0], get(l, "tuning", r))
				add(&ws[1], get(l, "held-out", r))
			}
			line += fmt.Sprintf(" %s / %s (%d / %d distinct%s) |", ws[0].precision(), ws[1].precision(), ws[0].distinct, ws[1].distinct, unrev(ws[0], ws[1]))
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// findingList writes every distinct finding of the reviewed binary with
// its verdict, the tuning half first, in split.txt's order.
func findingList(w io.Writer, base string, found map[key]int, half map[string]string, order []string, verdictOf func(key) *reviewRow) error {
	fmt.Fprintf(w, "# Every distinct default finding of %s on test/realworld2, reviewed\n\n", base)
	fmt.Fprintln(w, "Generated by hack/realworld-review -findings from review.tsv; see docs/realworld2-review.md.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| half | input | rule | severity | object | verdict | why | message |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	var ks []key
	for k := range found {
		ks = append(ks, k)
	}
	pos := map[string]int{}
	for i, in := range order {
		pos[in] = i
	}
	slices.SortFunc(ks, func(a, b key) int {
		if half[a.Input] != half[b.Input] {
			return strings.Compare(b_(half[a.Input]), b_(half[b.Input]))
		}
		if pos[a.Input] != pos[b.Input] {
			return pos[a.Input] - pos[b.Input]
		}
		return strings.Compare(a.Rule+"\x00"+a.Object+"\x00"+a.Message, b.Rule+"\x00"+b.Object+"\x00"+b.Message)
	})
	for _, k := range ks {
		v := verdictOf(k)
		msg := k.Message
		if len(msg) > 160 {
			msg = msg[:157] + "..."
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", half[k.Input], k.Input, k.Rule, k.Severity, k.Object, v.Verdict, cell(v.Why), cell(msg))
	}
	return nil
}

// b_ sorts the tuning half first.
func b_(h string) string {
	if h == "tuning" {
		return "0"
	}
	return "1"
}

func unrev(a, b tally) string {
	if a.unreviewed+b.unreviewed == 0 {
		return ""
	}
	return fmt.Sprintf("; %d / %d unreviewed", a.unreviewed, b.unreviewed)
}

func add(t *tally, u tally) {
	t.findings += u.findings
	t.distinct += u.distinct
	t.t += u.t
	t.f += u.f
	t.d += u.d
	t.unreviewed += u.unreviewed
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }
