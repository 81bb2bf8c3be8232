package manifest

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fastYAML parses one document, the text between two separator lines, into
// the node tree yaml.v3's Decoder gives for it, for the common shape of a
// manifest only: block mappings and sequences of one-line scalars, comments
// and blank lines. It reports false, having built nothing of use, on
// anything else, and the caller then asks yaml.v3: a tab, a carriage
// return, a byte outside printable ASCII, a document marker or directive,
// an anchor, alias or tag, a flow collection other than an empty [] or {},
// a block scalar (| or >), a scalar over several lines, a double-quoted
// scalar with an escape, a quoted or complex key, a key with no value, the
// merge key "<<", or any line it cannot place.
//
// What it builds is what yaml.v3's parser builds (go.yaml.in/yaml/v3's
// parser.node, parser.scalar, parser.mapping and parser.sequence), field for
// field, save the comments, which the loader does not read: Kind, Style,
// Tag (a plain scalar's resolved as yaml.v3 resolves it, through
// Node.ShortTag), Value, Line, Column and Content. yaml.v3 spends most of a
// run's loading time in its general scanner; manifests rarely need it.
func fastYAML(text []byte) (*yaml.Node, bool) {
	breaks := 0
	for _, c := range text {
		if c == '\n' {
			breaks++
			continue
		}
		if c < ' ' || c >= 0x7f {
			return nil, false
		}
	}
	p := &fastParser{finalBreak: len(text) > 0 && text[len(text)-1] == '\n', lines: make([][]byte, 0, breaks+1)}
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		p.lines = append(p.lines, line)
	}
	p.skip()
	if p.at >= len(p.lines) {
		return nil, false
	}
	first := p.lines[p.at]
	if first[0] == '%' || bytes.HasPrefix(first, []byte("---")) || bytes.HasPrefix(first, []byte("...")) {
		return nil, false
	}
	indent := indentOf(first)
	if indent != 0 {
		return nil, false
	}
	line := p.at
	root, ok := p.block(indent)
	if !ok {
		return nil, false
	}
	p.skip()
	if p.at != len(p.lines) {
		return nil, false
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Line: line + 1, Column: 1, Content: []*yaml.Node{root}}
	return doc, true
}

// maxSimpleKey bounds the length of a key the fast path reads; yaml.v3's
// scanner refuses an implicit key of more than 1024 characters.
const maxSimpleKey = 1000

// fastParser holds the state of one fastYAML call: the document's lines
// and the next line to read.
type fastParser struct {
	lines [][]byte
	at    int
	// finalBreak is set when the text ends with a line break.
	finalBreak bool
	// nodes is where node allocates the tree's nodes from, a block at a
	// time: one allocation for most documents instead of one per node (the
	// tree lives as long as its document, and goes with it).
	nodes     []yaml.Node
	allocated bool
}

// node returns a new node holding n.
func (p *fastParser) node(n yaml.Node) *yaml.Node {
	if len(p.nodes) == 0 {
		// A line holds a key and its value, or a list item: about two
		// nodes a line, and rarely many more.
		size := 2*len(p.lines) + 2
		if p.allocated {
			size = len(p.lines)/4 + 8
		}
		p.nodes, p.allocated = make([]yaml.Node, size), true
	}
	at := &p.nodes[0]
	*at = n
	p.nodes = p.nodes[1:]
	return at
}

// skip moves past blank lines and lines that hold only a comment.
func (p *fastParser) skip() {
	for p.at < len(p.lines) {
		l := p.lines[p.at]
		i := indentOf(l)
		if i < len(l) && l[i] != '#' {
			return
		}
		p.at++
	}
}

func indentOf(l []byte) int {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	return i
}

// block parses the block mapping or sequence whose first line is the next
// content line, indented by indent.
func (p *fastParser) block(indent int) (*yaml.Node, bool) {
	if isSeqItem(p.lines[p.at][indent:]) {
		return p.sequence(p.at, indent)
	}
	return p.mapping(p.at, indent)
}

// isSeqItem reports whether s starts a block sequence entry ("-" then a
// space or the end of the line).
func isSeqItem(s []byte) bool {
	return len(s) > 0 && s[0] == '-' && (len(s) == 1 || s[1] == ' ')
}

// mapping parses a block mapping whose first key starts on line at column
// col; the following keys are on lines of their own, indented by col.
func (p *fastParser) mapping(line, col int) (*yaml.Node, bool) {
	n := p.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line + 1, Column: col + 1})
	for {
		l := p.lines[p.at]
		rest := l[col:]
		colon := keyEnd(rest)
		if colon <= 0 || colon > maxSimpleKey {
			return nil, false
		}
		keyText := rest[:colon]
		if !plainStart(keyText) || keyText[len(keyText)-1] == ' ' || bytes.Contains(keyText, []byte(" #")) || string(keyText) == "<<" {
			return nil, false
		}
		key := p.plainScalar(keyString(keyText), p.at, col)
		n.Content = append(n.Content, key)
		valueCol := col + colon + 1
		for valueCol < len(l) && l[valueCol] == ' ' {
			valueCol++
		}
		if valueCol >= len(l) || l[valueCol] == '#' {
			if valueCol < len(l) && l[valueCol-1] != ' ' {
				return nil, false // "key:#" is not a comment
			}
			// The value is on the following lines.
			p.at++
			p.skip()
			if p.at >= len(p.lines) {
				return nil, false // a null value
			}
			next := p.lines[p.at]
			ni := indentOf(next)
			var v *yaml.Node
			var ok bool
			switch {
			case ni > col:
				v, ok = p.block(ni)
			case ni == col && isSeqItem(next[ni:]):
				v, ok = p.sequence(p.at, ni)
			default:
				return nil, false // a null value
			}
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, v)
		} else {
			v, ok := p.inline(p.at, valueCol, col)
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, v)
			p.at++
		}
		p.skip()
		if p.at >= len(p.lines) {
			return n, true
		}
		next := p.lines[p.at]
		switch ni := indentOf(next); {
		case ni == col:
			if isSeqItem(next[ni:]) {
				return nil, false
			}
			continue
		case ni < col:
			return n, true
		default:
			return nil, false // a continuation line, or a stray indentation
		}
	}
}

// sequence parses a block sequence whose first "-" is on line at column
// col; the following entries are on lines of their own, indented by col.
func (p *fastParser) sequence(line, col int) (*yaml.Node, bool) {
	n := p.node(yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line + 1, Column: col + 1})
	for {
		l := p.lines[p.at]
		itemCol := col + 1
		for itemCol < len(l) && l[itemCol] == ' ' {
			itemCol++
		}
		if itemCol >= len(l) || l[itemCol] == '#' {
			if itemCol < len(l) && l[itemCol-1] != ' ' {
				return nil, false
			}
			p.at++
			p.skip()
			if p.at >= len(p.lines) {
				return nil, false
			}
			next := p.lines[p.at]
			ni := indentOf(next)
			if ni <= col {
				return nil, false // a null entry
			}
			v, ok := p.block(ni)
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, v)
		} else {
			rest := l[itemCol:]
			var v *yaml.Node
			var ok bool
			switch {
			case isSeqItem(rest):
				return nil, false // a compact nested sequence
			case keyEnd(rest) > 0 && plainStart(rest):
				v, ok = p.mapping(p.at, itemCol)
			default:
				v, ok = p.inline(p.at, itemCol, col)
				p.at++
			}
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, v)
		}
		p.skip()
		if p.at >= len(p.lines) {
			return n, true
		}
		next := p.lines[p.at]
		switch ni := indentOf(next); {
		case ni == col && isSeqItem(next[ni:]):
			continue
		case ni < col:
			return n, true
		case ni == col:
			return n, true // the mapping around a sequence at its key's indentation
		default:
			return nil, false
		}
	}
}

// keyEnd returns the offset in s of the ':' that ends a plain mapping key
// (followed by a space or the end of the line), or -1. A " #" before it
// starts a comment, so there is no key.
func keyEnd(s []byte) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			if i+1 == len(s) || s[i+1] == ' ' {
				return i
			}
		case '#':
			if i == 0 || s[i-1] == ' ' {
				return -1
			}
		}
	}
	return -1
}

// plainStart reports whether s may start a plain scalar in block context
// without the fast path having to think harder: not an indicator, and "-"
// only before a character that is not a space.
func plainStart(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	switch s[0] {
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		return false
	case '-':
		return len(s) > 1 && s[1] != ' '
	}
	return true
}

// inline parses the scalar (or empty flow collection) that fills line from
// column col to its end or its comment; parent is the column of the
// mapping or sequence it belongs to.
func (p *fastParser) inline(line, col, parent int) (*yaml.Node, bool) {
	l := p.lines[line]
	rest := l[col:]
	switch rest[0] {
	case '|':
		return p.literal(line, col, parent)
	case '\'', '"':
		q := rest[0]
		var value []byte
		i := 1
		for {
			j := bytes.IndexByte(rest[i:], q)
			if j < 0 {
				return nil, false // over several lines, or unterminated
			}
			value = append(value, rest[i:i+j]...)
			i += j + 1
			if q == '\'' && i < len(rest) && rest[i] == '\'' {
				value = append(value, '\'')
				i++
				continue
			}
			break
		}
		if q == '"' && bytes.IndexByte(value, '\\') >= 0 {
			return nil, false
		}
		if !trailerOK(rest[i:]) || !p.ends(line, parent) {
			return nil, false
		}
		style := yaml.DoubleQuotedStyle
		if q == '\'' {
			style = yaml.SingleQuotedStyle
		}
		return p.node(yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: string(value), Line: line + 1, Column: col + 1}), true
	case '[', '{':
		n, end, ok := p.flowCollection(rest, line, col)
		if !ok || !trailerOK(rest[end:]) || !p.ends(line, parent) {
			return nil, false
		}
		return n, true
	}
	if !plainStart(rest) {
		return nil, false
	}
	end := len(rest)
	if i := bytes.Index(rest, []byte(" #")); i >= 0 {
		end = i
	}
	value := bytes.TrimRight(rest[:end], " ")
	if bytes.Contains(value, []byte(": ")) || value[len(value)-1] == ':' || !p.ends(line, parent) {
		return nil, false
	}
	return p.plainScalar(string(value), line, col), true
}

// trailerOK reports whether what follows a quoted scalar or a flow
// collection on its line is only spaces and a comment.
func trailerOK(s []byte) bool {
	i := indentOf(s)
	return i == len(s) || (i > 0 && s[i] == '#')
}

// ends reports whether the scalar on line ends with it: the next content
// line is not indented beyond parent, the column of the collection the
// scalar is in. A scalar continues onto a line indented beyond it (a
// multi-line plain scalar); the fast path leaves those to yaml.v3. A
// comment line ends a plain scalar.
func (p *fastParser) ends(line, parent int) bool {
	for i := line + 1; i < len(p.lines); i++ {
		l := p.lines[i]
		ni := indentOf(l)
		if ni == len(l) {
			continue // blank: a multi-line scalar may hold blank lines
		}
		return l[ni] == '#' || ni <= parent
	}
	return true
}

// plainScalar is a plain scalar node as yaml.v3's parser makes it: its tag
// resolved from its value (parser.node calls resolve, as Node.ShortTag
// does for an untagged plain scalar), save "<<", which parser.scalar tags
// as a merge key wherever it stands.
func (p *fastParser) plainScalar(value string, line, col int) *yaml.Node {
	n := p.node(yaml.Node{Kind: yaml.ScalarNode, Value: value, Line: line + 1, Column: col + 1})
	switch {
	case value == "<<":
		n.Tag = "!!merge"
	case value != "" && !resolveHinted(value[0]):
		// What Node.ShortTag resolves it to without a hint: a string.
		n.Tag = "!!str"
	default:
		n.Tag = n.ShortTag()
	}
	return n
}

// resolveHinted reports whether yaml.v3's resolve reads more of a plain
// scalar that starts with c than its first byte (its resolveTable has a
// hint for c: a sign, a digit, '.', or the first letter of a boolean or
// null); a scalar without a hint resolves to !!str.
func resolveHinted(c byte) bool {
	switch c {
	case '+', '-', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
		'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		return true
	}
	return false
}

// flowCollection parses a flow sequence or mapping of scalars that starts
// s (at column col of line) and closes on the same line: [a, "b", 'c'] or
// {k: v, k2: "v2"}, or an empty one. It returns the node and the offset in s
// just past the closing bracket. Nested collections, empty entries, a
// trailing comma, keys without values and anything else the fast path does
// not read are left to yaml.v3.
func (p *fastParser) flowCollection(s []byte, line, col int) (*yaml.Node, int, bool) {
	mapping := s[0] == '{'
	n := p.node(yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq", Line: line + 1, Column: col + 1})
	closing := byte(']')
	if mapping {
		n.Kind, n.Tag, closing = yaml.MappingNode, "!!map", '}'
	}
	i := 1 + indentOf(s[1:])
	if i < len(s) && s[i] == closing {
		return n, i + 1, true
	}
	for {
		k, end, ok := p.flowScalar(s, i, line, col, mapping)
		if !ok {
			return nil, 0, false
		}
		n.Content = append(n.Content, k)
		i = end
		if mapping {
			// ": " and then the value.
			if i+1 >= len(s) || s[i] != ':' || s[i+1] != ' ' || (k.Style == 0 && k.Value == "<<") {
				return nil, 0, false
			}
			i += 1 + indentOf(s[i+1:])
			v, end, ok := p.flowScalar(s, i, line, col, false)
			if !ok {
				return nil, 0, false
			}
			n.Content = append(n.Content, v)
			i = end
		}
		i += indentOf(s[i:])
		switch {
		case i < len(s) && s[i] == closing:
			return n, i + 1, true
		case i < len(s) && s[i] == ',':
			i++
			i += indentOf(s[i:])
			if i >= len(s) || s[i] == closing || s[i] == ',' {
				return nil, 0, false // a trailing comma or an empty entry
			}
		default:
			return nil, 0, false
		}
	}
}

// flowScalar parses a scalar inside a flow collection from s[i]: quoted,
// or plain up to the next ',', ']' or '}' (or, for a key, ':'). It returns
// the node and the offset just past it (before a plain scalar's trailing
// spaces are skipped by the caller).
func (p *fastParser) flowScalar(s []byte, i, line, col int, key bool) (*yaml.Node, int, bool) {
	if i >= len(s) {
		return nil, 0, false
	}
	if q := s[i]; q == '\'' || q == '"' {
		var value []byte
		j := i + 1
		for {
			k := bytes.IndexByte(s[j:], q)
			if k < 0 {
				return nil, 0, false
			}
			value = append(value, s[j:j+k]...)
			j += k + 1
			if q == '\'' && j < len(s) && s[j] == '\'' {
				value = append(value, '\'')
				j++
				continue
			}
			break
		}
		if q == '"' && bytes.IndexByte(value, '\\') >= 0 {
			return nil, 0, false
		}
		// What follows is the caller's to read: a space, ',', the closing
		// bracket or, after a key, ':'.
		if j < len(s) && s[j] != ' ' && s[j] != ',' && s[j] != ']' && s[j] != '}' && s[j] != ':' {
			return nil, 0, false
		}
		style := yaml.DoubleQuotedStyle
		if q == '\'' {
			style = yaml.SingleQuotedStyle
		}
		return p.node(yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: string(value), Line: line + 1, Column: col + i + 1}), j, true
	}
	if !plainStart(s[i:]) {
		return nil, 0, false
	}
	j := i
	// yaml.v3's scanner ends a plain scalar in a flow collection at any of
	// ",?[]{}" (yaml_parser_scan_plain_scalar); '?', '#' and ':' are left
	// to it.
	for j < len(s) && !bytes.ContainsRune([]byte(",?[]{}#:"), rune(s[j])) {
		j++
	}
	if j >= len(s) {
		return nil, 0, false
	}
	switch s[j] {
	case '[', '{', '#', '?':
		return nil, 0, false
	case ':':
		if !key {
			return nil, 0, false // a colon inside a plain scalar: left to yaml.v3
		}
	}
	value := bytes.TrimRight(s[i:j], " ")
	if key && (s[j] != ':' || len(value) != j-i || j-i > maxSimpleKey) {
		return nil, 0, false // a key ends with ": ", with no space before the colon
	}
	return p.plainScalar(string(value), line, col+i), j, true
}

// literal parses a literal block scalar ("|" or "|-", with the content's
// indentation found from its first line) whose indicator is on line at
// column col, inside the collection at column parent; it leaves p.at on the
// scalar's last line. The value is what yaml.v3's scanner reads
// (yaml_parser_scan_block_scalar): each content line less the content's
// indentation, with its line break, the trailing blank lines dropped and the
// last break kept ("|", clip) or dropped ("|-", strip). Folded scalars,
// explicit indentation, "|+", blank lines before the first content line and
// a scalar that ends the text without a line break are left to yaml.v3.
func (p *fastParser) literal(line, col, parent int) (*yaml.Node, bool) {
	header := p.lines[line][col+1:]
	strip := false
	if len(header) > 0 && header[0] == '-' {
		strip, header = true, header[1:]
	}
	if !trailerOK(header) {
		return nil, false
	}
	if line+1 >= len(p.lines) {
		return nil, false
	}
	first := p.lines[line+1]
	indent := indentOf(first)
	if indent == len(first) || indent <= parent {
		return nil, false // a blank first line, or an empty scalar
	}
	var value []byte
	last := line + 1 // the last content line
	blanks := 0      // blank lines since it
	i := line + 1
	for ; i < len(p.lines); i++ {
		l := p.lines[i]
		ni := indentOf(l)
		if ni == len(l) {
			if ni > indent {
				return nil, false // a blank line with spaces beyond the indentation is content
			}
			blanks++
			continue
		}
		if ni < indent {
			break
		}
		for range blanks {
			value = append(value, '\n')
		}
		blanks = 0
		value = append(value, l[indent:]...)
		value = append(value, '\n')
		last = i
	}
	if last == len(p.lines)-1 && !p.finalBreak {
		return nil, false
	}
	if strip {
		value = value[:len(value)-1]
	}
	p.at = last
	return p.node(yaml.Node{Kind: yaml.ScalarNode, Style: yaml.LiteralStyle, Tag: "!!str", Value: string(value), Line: line + 1, Column: col + 1}), true
}

// keyString is string(key), without allocating for the keys most
// manifests repeat in every object.
func keyString(key []byte) string {
	if s, ok := commonKeys[string(key)]; ok {
		return s
	}
	return string(key)
}

// commonKeys are the mapping keys of the common manifest (a Deployment, a
// Service and their metadata), each its own value.
var commonKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range strings.Fields(`apiVersion kind metadata name namespace labels annotations spec
		replicas selector matchLabels matchExpressions key operator values template containers initContainers
		image imagePullPolicy ports containerPort protocol port targetPort nodePort type env value valueFrom
		resources requests limits cpu memory ephemeral-storage livenessProbe readinessProbe startupProbe httpGet
		path tcpSocket exec command args initialDelaySeconds periodSeconds timeoutSeconds failureThreshold
		successThreshold volumeMounts mountPath readOnly volumes configMap secret secretName emptyDir
		securityContext runAsNonRoot runAsUser runAsGroup fsGroup readOnlyRootFilesystem allowPrivilegeEscalation
		capabilities drop add privileged seccompProfile serviceAccountName strategy rollingUpdate maxSurge
		maxUnavailable minReadySeconds revisionHistoryLimit affinity podAntiAffinity nodeSelector tolerations
		effect topologySpreadConstraints topologyKey whenUnsatisfiable maxSkew labelSelector minAvailable
		data stringData schedule jobTemplate backoffLimit restartPolicy completions parallelism serviceName
		updateStrategy partition app tier version component minReplicas maxReplicas scaleTargetRef metrics
		target averageUtilization rules http paths backend service number pathType host podSelector
		policyTypes ingress egress from to app.kubernetes.io/name app.kubernetes.io/instance
		app.kubernetes.io/version app.kubernetes.io/component app.kubernetes.io/part-of
		app.kubernetes.io/managed-by`) {
		m[k] = k
	}
	return m
}()
