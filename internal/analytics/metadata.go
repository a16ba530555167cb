package analytics

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// MaxQueryLen is the longest metadata expression accepted (spec 5).
const MaxQueryLen = 10000

// Op is a metadata comparison.
type Op string

// The comparisons of the metadata grammar.
const (
	OpEq  Op = "equals"
	OpNe  Op = "notEquals"
	OpGt  Op = "greaterThan"
	OpLt  Op = "lessThan"
	OpGte Op = "greaterThanOrEqual"
	OpLte Op = "lessThanOrEqual"
)

// Condition is one parsed `FIELD op value` piece of a metadata query.
// Field is "metadata" for metadata operands (Path then holds the segments)
// and the identifier otherwise; only metadata conditions are evaluated.
type Condition struct {
	Field string
	Path  []string
	Op    Op
	Value string
}

// IsMetadata reports a condition the engine evaluates.
func (c Condition) IsMetadata() bool { return c.Field == "metadata" && len(c.Path) > 0 }

// Key is the top-level metadata key the condition reads: upstream only
// looks at the first path segment (spec 5).
func (c Condition) Key() string { return c.Path[0] }

var (
	querySplitRe = regexp.MustCompile(`\s+(?:AND|and|OR|or)\s+`)
	pieceRe      = regexp.MustCompile(`^([a-zA-Z_][a-zA-Z0-9_]*|metadata(?:\[(?:'[^'"]*'|"[^'"]*")\])+)\s*([:><=!]+)\s*(.+)$`)
	segmentRe    = regexp.MustCompile(`\[(?:'([^'"]*)'|"([^'"]*)")\]`)
	metaKeyRe    = regexp.MustCompile(`^[a-zA-Z0-9_.]+$`)
	valueJunk    = strings.NewReplacer(";", "", `\`, "", "--", "", "/*", "", "*/", "")
)

// ParseMetadataQuery parses the `query` parameter into its conditions
// (spec 5). Pieces that do not match the grammar are dropped, as upstream
// does; OR is read as AND. The length limit is checked by Parse.
func ParseMetadataQuery(s string) []Condition {
	var out []Condition
	for _, piece := range querySplitRe.Split(s, -1) {
		piece = strings.TrimSpace(piece)
		if piece == "" {
			continue
		}
		m := pieceRe.FindStringSubmatch(piece)
		if m == nil {
			continue
		}
		c := Condition{Field: m[1], Op: parseOp(m[2])}
		if strings.HasPrefix(m[1], "metadata[") {
			c.Field = "metadata"
			for _, seg := range segmentRe.FindAllStringSubmatch(m[1], -1) {
				c.Path = append(c.Path, seg[1]+seg[2])
			}
			if !metaKeyRe.MatchString(strings.Join(c.Path, ".")) {
				continue
			}
		}
		c.Value = cleanValue(m[3])
		if c.Value == "" {
			continue
		}
		out = append(out, c)
	}
	return out
}

func parseOp(s string) Op {
	switch s {
	case "!=":
		return OpNe
	case ">":
		return OpGt
	case "<":
		return OpLt
	case ">=":
		return OpGte
	case "<=":
		return OpLte
	}
	return OpEq
}

func cleanValue(v string) string {
	v = strings.TrimSpace(v)
	isQuote := func(b byte) bool { return b == '\'' || b == '"' || b == '`' }
	if len(v) > 0 && isQuote(v[0]) {
		v = v[1:]
	}
	if len(v) > 0 && isQuote(v[len(v)-1]) {
		v = v[:len(v)-1]
	}
	// Removing "-" pairs can create new pairs ("---" → "-"); upstream's
	// replaceAll passes once per pattern, and so does this.
	return valueJunk.Replace(v)
}

// MetadataValue is what the evaluator sees for a key: the value when it is a
// JSON string, else "" (spec 5).
func MetadataValue(metadata, key string) string {
	if metadata == "" {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(metadata), &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return s
}

var numericRe = regexp.MustCompile(`^\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$`)

// Numeric parses a metadata comparison operand the way the evaluator does
// (the SQL translations use the same pattern).
func Numeric(s string) (float64, bool) {
	if !numericRe.MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil
}

// Eval evaluates one metadata condition against an event's metadata JSON.
// It is the reference semantics the SQL translation must agree with.
func (c Condition) Eval(metadata string) bool {
	if !c.IsMetadata() {
		return true
	}
	v := MetadataValue(metadata, c.Key())
	switch c.Op {
	case OpEq:
		return v == c.Value
	case OpNe:
		return v != c.Value
	}
	a, ok1 := Numeric(v)
	b, ok2 := Numeric(c.Value)
	if !ok1 || !ok2 {
		return false
	}
	switch c.Op {
	case OpGt:
		return a > b
	case OpLt:
		return a < b
	case OpGte:
		return a >= b
	default:
		return a <= b
	}
}
