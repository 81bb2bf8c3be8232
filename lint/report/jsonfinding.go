package report

import (
	"strconv"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/lint"
)

// appendFinding appends f as a json.Encoder with SetIndent("    ", "  ")
// encodes it (without the newline Encode ends a value with): the JSON
// report's array element. encoding/json spent most of the report's time in
// reflection and in re-indenting what it had encoded; a finding's layout is
// fixed, so it is written directly. TestAppendFindingIsTheEncoders holds it
// to the encoder byte for byte, escapes and omitted fields included.
func appendFinding(b []byte, f *lint.Finding) []byte {
	b = append(b, "{\n      \"rule\": "...)
	b = manifest.AppendJSONString(b, f.Rule)
	b = append(b, ",\n      \"severity\": "...)
	b = manifest.AppendJSONString(b, f.Severity.String()) // Severity.MarshalJSON
	b = append(b, ",\n      \"message\": "...)
	b = manifest.AppendJSONString(b, f.Message)
	b = append(b, ",\n      \"file\": "...)
	b = manifest.AppendJSONString(b, f.File)
	b = append(b, ",\n      \"document\": "...)
	b = strconv.AppendInt(b, int64(f.Document), 10)
	b = append(b, ",\n      \"line\": "...)
	b = strconv.AppendInt(b, int64(f.Line), 10)
	b = append(b, ",\n      \"column\": "...)
	b = strconv.AppendInt(b, int64(f.Column), 10)
	if f.Field != "" {
		b = append(b, ",\n      \"field\": "...)
		b = manifest.AppendJSONString(b, f.Field)
	}
	if o := f.Object; o != nil {
		b = append(b, ",\n      \"object\": {\n        \"apiVersion\": "...)
		b = manifest.AppendJSONString(b, o.APIVersion)
		b = append(b, ",\n        \"kind\": "...)
		b = manifest.AppendJSONString(b, o.Kind)
		if o.Namespace != "" {
			b = append(b, ",\n        \"namespace\": "...)
			b = manifest.AppendJSONString(b, o.Namespace)
		}
		b = append(b, ",\n        \"name\": "...)
		b = manifest.AppendJSONString(b, o.Name)
		b = append(b, "\n      }"...)
	}
	if f.Related != 0 {
		b = append(b, ",\n      \"related\": "...)
		b = strconv.AppendInt(b, int64(f.Related), 10)
	}
	if r := f.Rendered; r != nil {
		b = append(b, ",\n      \"rendered\": {\n        \"file\": "...)
		b = manifest.AppendJSONString(b, r.File)
		b = append(b, ",\n        \"document\": "...)
		b = strconv.AppendInt(b, int64(r.Document), 10)
		b = append(b, ",\n        \"line\": "...)
		b = strconv.AppendInt(b, int64(r.Line), 10)
		b = append(b, ",\n        \"column\": "...)
		b = strconv.AppendInt(b, int64(r.Column), 10)
		b = append(b, "\n      }"...)
	}
	if s := f.Suppressed; s != nil {
		b = append(b, ",\n      \"suppressed\": {\n        \"kind\": "...)
		b = manifest.AppendJSONString(b, s.Kind)
		b = append(b, ",\n        \"reason\": "...)
		b = manifest.AppendJSONString(b, s.Reason)
		b = append(b, "\n      }"...)
	}
	return append(b, "\n    }"...)
}

// findingsSize is about the bytes appendFinding writes for fs, with their
// separators: the strings as they are (escapes are rare) and each finding's
// fixed layout, so that a chunk's buffer is allocated once, not grown by
// doubling into garbage that the collector must find room for.
func findingsSize(fs []lint.Finding) int {
	const layout = 300 // keys, indentation, numbers and the object's braces
	n := 0
	for i := range fs {
		f := &fs[i]
		n += layout + len(f.Rule) + len(f.Message) + len(f.File) + len(f.Field)
		if o := f.Object; o != nil {
			n += len(o.APIVersion) + len(o.Kind) + len(o.Namespace) + len(o.Name)
		}
		if r := f.Rendered; r != nil {
			n += 100 + len(r.File)
		}
		if s := f.Suppressed; s != nil {
			n += 60 + len(s.Kind) + len(s.Reason)
		}
	}
	return n
}
