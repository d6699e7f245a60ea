package report

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// xsdNode is an element of an XML document, read whole.
type xsdNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []xsdNode  `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (n xsdNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// xsdElement is what the schema allows an element: its attributes (with
// whether each is required and the pattern of its type), the elements it
// may hold, and whether it may hold text.
type xsdElement struct {
	attrs    map[string]bool
	patterns map[string]*regexp.Regexp
	children map[string]bool
	text     bool
}

// loadXSD reads the constructs junit-10.xsd uses (global elements with
// inline or named complex types, sequence and choice of element refs and
// inline elements, attributes with use and a simple type restricted by a
// pattern, mixed content, xs:string elements) and fails on any other, so
// that validation cannot pass by not understanding the schema.
func loadXSD(t *testing.T, path string) map[string]*xsdElement {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s: %v", path, err)
	}
	var schema xsdNode
	if err := xml.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	simple := map[string]*regexp.Regexp{}
	named := map[string]xsdNode{}
	var globals []xsdNode
	for _, n := range schema.Children {
		switch n.XMLName.Local {
		case "simpleType":
			pat := ""
			for _, r := range n.Children {
				for _, p := range r.Children {
					if p.XMLName.Local == "pattern" {
						pat = p.attr("value")
					}
				}
			}
			simple[n.attr("name")] = regexp.MustCompile("^(?:" + pat + ")$")
		case "complexType":
			named[n.attr("name")] = n
		case "element":
			globals = append(globals, n)
		default:
			t.Fatalf("schema construct %s not understood", n.XMLName.Local)
		}
	}
	out := map[string]*xsdElement{}
	var build func(n xsdNode) *xsdElement
	build = func(el xsdNode) *xsdElement {
		e := &xsdElement{attrs: map[string]bool{}, patterns: map[string]*regexp.Regexp{}, children: map[string]bool{}}
		typ := el.attr("type")
		var ct *xsdNode
		switch {
		case typ == "xs:string":
			e.text = true
			return e
		case typ != "":
			c, ok := named[typ]
			if !ok {
				t.Fatalf("type %s not understood", typ)
			}
			ct = &c
		default:
			for i := range el.Children {
				if el.Children[i].XMLName.Local == "complexType" {
					ct = &el.Children[i]
				}
			}
		}
		if ct == nil {
			t.Fatalf("element %s: no type", el.attr("name"))
		}
		e.text = ct.attr("mixed") == "true"
		var walk func(n xsdNode)
		walk = func(n xsdNode) {
			for _, c := range n.Children {
				switch c.XMLName.Local {
				case "sequence", "choice":
					walk(c)
				case "element":
					name := c.attr("ref")
					if name == "" {
						name = c.attr("name")
						out[n.attr("name")+"/"+name] = build(c)
					}
					e.children[name] = true
				case "attribute":
					e.attrs[c.attr("name")] = c.attr("use") == "required"
					if p, ok := simple[c.attr("type")]; ok {
						e.patterns[c.attr("name")] = p
					}
				default:
					t.Fatalf("schema construct %s not understood", c.XMLName.Local)
				}
			}
		}
		walk(*ct)
		return e
	}
	for _, g := range globals {
		out[g.attr("name")] = build(g)
	}
	return out
}

// validateXSD checks a document against the schema loadXSD read.
func validateXSD(schema map[string]*xsdElement, doc []byte) []string {
	var root xsdNode
	if err := xml.Unmarshal(doc, &root); err != nil {
		return []string{err.Error()}
	}
	var problems []string
	var check func(n xsdNode, where string)
	check = func(n xsdNode, where string) {
		name := n.XMLName.Local
		where += "/" + name
		e, ok := schema[name]
		if !ok {
			problems = append(problems, where+": element not in the schema")
			return
		}
		seen := map[string]bool{}
		for _, a := range n.Attrs {
			seen[a.Name.Local] = true
			if _, ok := e.attrs[a.Name.Local]; !ok {
				problems = append(problems, fmt.Sprintf("%s: attribute %s not allowed", where, a.Name.Local))
			}
			if p := e.patterns[a.Name.Local]; p != nil && !p.MatchString(a.Value) {
				problems = append(problems, fmt.Sprintf("%s: %s=%q does not match its type", where, a.Name.Local, a.Value))
			}
		}
		for a, required := range e.attrs {
			if required && !seen[a] {
				problems = append(problems, fmt.Sprintf("%s: required attribute %s missing", where, a))
			}
		}
		if !e.text && strings.TrimSpace(n.Text) != "" {
			problems = append(problems, where+": text not allowed")
		}
		for _, c := range n.Children {
			if !e.children[c.XMLName.Local] {
				problems = append(problems, fmt.Sprintf("%s: element %s not allowed here", where, c.XMLName.Local))
				continue
			}
			check(c, where)
		}
	}
	check(root, "")
	return problems
}

// Issue 15: JUnit reports validate against the Jenkins xunit schema that
// pytest validates against (../shared/schemas/junit-10.xsd), with
// findings, suppressed findings (skipped test cases) and clean files.
func TestJUnitSchema(t *testing.T) {
	xsd, _ := filepath.Abs("../../shared/schemas/junit-10.xsd")
	schema := loadXSD(t, xsd)
	// The validator must refuse what the schema refuses.
	if p := validateXSD(schema, []byte(`<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x" file="a" line="1"/></testsuite></testsuites>`)); len(p) != 2 {
		t.Errorf("testcase file/line: %v", p)
	}
	for _, show := range []bool{false, true} {
		res := contractResult(t)
		res.ShowSuppressed = show
		out := render(t, "junit", res)
		if p := validateXSD(schema, []byte(out)); len(p) > 0 {
			t.Errorf("--show-suppressed %v: %s\n%s", show, strings.Join(p, "\n"), out)
		}
		hasSkip := strings.Contains(out, `<skipped message="suppressed (buildgate:ignore: read by the nightly job)`)
		if hasSkip != show {
			t.Errorf("--show-suppressed %v: skipped test case for the suppressed finding: %v", show, hasSkip)
		}
		if !strings.Contains(out, "docker/Dockerfile.rocm:8:5: error:") || !strings.Contains(out, `time="`) {
			t.Errorf("failure text or time missing:\n%s", out)
		}
	}
}
