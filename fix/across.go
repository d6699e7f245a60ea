package fix

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/buildgate/buildgate/loader"
)

// Name is something a fix removes from one file that another file can
// still name: a Dockerfile stage (`docker build --target`, a bake target's
// `target =`), a bake target or group (`docker buildx bake NAME`, another
// bake file's group), a bake variable or function (another bake file
// loaded with it), a script's variable (a child process, a sourced file,
// a bake variable read from the environment).
type Name struct {
	Kind string // "stage", "target", "group", "bake variable", "bake function", "variable"
	Name string
}

func (n Name) String() string { return n.Kind + " " + n.Name }

// fromHCL reports whether the name is a bake file's own, which another
// bake file can use structurally (checkHCL), not only by its text.
func (n Name) fromHCL() bool {
	switch n.Kind {
	case "target", "group", "bake variable", "bake function":
		return true
	}
	return false
}

// textual reports whether another file naming it as a word can break:
// a bake variable or function is used only by bake files, which are
// checked structurally.
func (n Name) textual() bool { return n.Kind != "bake variable" && n.Kind != "bake function" }

// Named says where the file at path, with the text it will have once
// fixed, still names one of gone (names another file's fix removes), ""
// when it names none. Bake files are parsed (a target, group, variable or
// function still used, as bake merges them); any other file is read as
// text without its comment lines, a name counting where it stands as a
// word: a stage name is matched without regard to case (buildkit lowers
// it). That is conservative: a name in a string or an unrelated command
// keeps the removal out, never the other way. A Dockerfile or a
// requirements file names none of them (a stage is another Dockerfile's,
// a target bake's, a variable reaches a Dockerfile only through a build
// argument something else passes).
func Named(p string, text []byte, gone []Name) string {
	if k, ok := loader.DetectName(p); len(gone) == 0 || ok && (k == loader.KindDockerfile || k == loader.KindRequirements) {
		return ""
	}
	if strings.HasSuffix(p, ".hcl") {
		byKind := map[string]map[string]bool{"variable": {}, "function": {}, "target": {}, "group": {}}
		var rest []Name
		for _, n := range gone {
			switch {
			case n.fromHCL():
				byKind[strings.TrimPrefix(n.Kind, "bake ")][n.Name] = true
			default:
				rest = append(rest, n)
			}
		}
		if err := checkHCL(p, text, byKind); err != nil {
			if strings.HasPrefix(err.Error(), "not parse") {
				return "" // its own finding (BG001) stands; nothing to check
			}
			return err.Error()
		}
		gone = rest
	}
	if n, line, ok := wordIn(text, gone); ok {
		return fmt.Sprintf("name the %s (line %d)", n, line)
	}
	return ""
}

// wordIn finds the first of names (those that text can name) standing as
// a word in a line of text that is not a comment. Stage names are
// compared without regard to ASCII case, the others exactly; the text is
// bytes (no regular expression, which a name of invalid UTF-8 breaks).
func wordIn(text []byte, names []Name) (Name, int, bool) {
	var ns []Name
	for _, n := range names {
		if n.textual() && n.Name != "" {
			ns = append(ns, n)
		}
	}
	if len(ns) == 0 {
		return Name{}, 0, false
	}
	for i, line := range bytes.Split(text, []byte("\n")) {
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 || t[0] == '#' || bytes.HasPrefix(t, []byte("//")) {
			continue
		}
		var lower []byte
		for _, n := range ns {
			hay, needle := line, []byte(n.Name)
			if n.Kind == "stage" {
				if lower == nil {
					lower = asciiLower(line)
				}
				hay, needle = lower, asciiLower(needle)
			}
			for at := 0; at <= len(hay)-len(needle); {
				k := bytes.Index(hay[at:], needle)
				if k < 0 {
					break
				}
				s, e := at+k, at+k+len(needle)
				if (s == 0 || !wordByte(hay[s-1])) && (e == len(hay) || !wordByte(hay[e])) {
					return n, i + 1, true
				}
				at = s + 1
			}
		}
	}
	return Name{}, 0, false
}

// asciiLower lowers A-Z only, so that offsets stay those of the input.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// wordByte is a byte a name can hold: stage, target and variable names
// are letters, digits, '_', '-' and '.'.
func wordByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// BakeLoads are the files `docker buildx bake` merges by default beside
// its HCL files (Docker's lookup order): a name a fix removes from a bake
// file must not be used there either.
var BakeLoads = []string{"docker-bake.json", "docker-bake.override.json", "compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"}

// Near are the files whose text bake merges with the bake files among
// paths: those of BakeLoads in the root and in each bake file's directory.
func Near(paths []string) []string {
	dirs := map[string]bool{".": true}
	for _, p := range paths {
		if strings.HasSuffix(p, ".hcl") {
			dirs[path.Dir(p)] = true
		}
	}
	var out []string
	for d := range dirs {
		for _, name := range BakeLoads {
			out = append(out, path.Join(d, name))
		}
	}
	sort.Strings(out)
	return out
}

// Change is one file's planned change in a fix run.
type Change struct {
	Path     string
	Old, New []byte
	Gone     []Name // what the change removes that other files could name
	Refused  string // why Resolve refused it, "" while it stands
}

// text is the file's text once the run is over.
func (c *Change) text() []byte {
	if c.Refused != "" {
		return c.Old
	}
	return c.New
}

// Resolve refuses each change that removes a name another file still
// names, as that file will be once the changes that stand are made: a
// stage a script still builds with --target, a target a declined bake
// file still groups, a variable a bake file still reads from the
// environment. Refusing one change brings back what it removed, which
// can refuse others; Resolve repeats until none is refused (it ends:
// refusals only grow). files are the other files to look into (the
// linted files and those bake merges); read gives the text of a file no
// change is planned for, false when there is none to read.
func Resolve(changes []*Change, files []string, read func(string) ([]byte, bool)) {
	byPath := map[string]*Change{}
	gone := false
	for _, c := range changes {
		byPath[c.Path] = c
		gone = gone || len(c.Gone) > 0
	}
	if !gone {
		return
	}
	all := append([]string(nil), files...)
	for _, c := range changes {
		all = append(all, c.Path)
	}
	sort.Strings(all)
	all = slices.Compact(all)
	texts := map[string][]byte{}
	textOf := func(p string) ([]byte, bool) {
		if c, ok := byPath[p]; ok {
			return c.text(), true
		}
		if t, ok := texts[p]; ok {
			return t, t != nil
		}
		t, ok := read(p)
		if !ok {
			t = nil
		}
		texts[p] = t
		return t, ok
	}
	for refused := true; refused; {
		refused = false
		for _, c := range changes {
			if c.Refused != "" || len(c.Gone) == 0 {
				continue
			}
			for _, o := range all {
				if o == c.Path {
					continue
				}
				t, ok := textOf(o)
				if !ok {
					continue
				}
				if why := Named(o, t, c.Gone); why != "" {
					c.Refused = fmt.Sprintf("%s would still %s once fixed; fix them together by hand", o, why)
					refused = true
					break
				}
			}
		}
	}
}
