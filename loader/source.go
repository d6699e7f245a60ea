package loader

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"path"
	"regexp"
)

// A run need not hold every file's text (issue 16): it keeps of a file its
// Stamp, and reads the text again when it is needed, through the same
// reader and checks, comparing it with the stamp. A file that changed,
// went or became unreadable in between is an error of its document
// (BG001), never its new text and never a gap.

// Stamp is what a run keeps of a text it read: its size and checksum.
type Stamp struct {
	Size int
	Sum  uint64
}

// sumSeed keys the checksums of one process: a file read again must be
// the file read first.
var sumSeed = maphash.MakeSeed()

// StampOf is the stamp of a text as read.
func StampOf(src []byte) Stamp { return Stamp{Size: len(src), Sum: maphash.Bytes(sumSeed, src)} }

// ReadAgain reads rel again and checks it is the text stamped.
func (l *Loader) ReadAgain(rel string, st Stamp) ([]byte, error) {
	src, err := l.read(rel)
	if err != nil {
		return nil, fmt.Errorf("cannot read the file again: %s", describe(err))
	}
	if len(src) != st.Size || maphash.Bytes(sumSeed, src) != st.Sum {
		return nil, fmt.Errorf("the file changed while buildgate was reading it (%d bytes, then %d): lint it again once nothing writes to it", st.Size, len(src))
	}
	return src, nil
}

// maxBareBytes is the size up to which a file may go unparsed when it
// says nothing the rules look for: above it a file is parsed whatever it
// says, so that the parsers' bounds (elements, nesting, recovery) are
// checked and reported.
const maxBareBytes = 256 << 10

// MustParse reports whether a file is parsed whatever it says: a
// requirements file (its includes are followed as it loads), a CI
// pipeline or a script (the files they have the CI system read or run are
// followed from them: References), a file over maxBareBytes, binary
// content (one error, no parse either way), a file past a bound counted
// before parsing (so that the bound is reported).
func MustParse(kind Kind, src []byte) bool {
	return ParsedForWhatItHolds(kind, src) || ParsedForBounds(kind, src)
}

// ParsedForWhatItHolds reports whether a file is parsed for what its
// elements say whatever its words: requirements files, pipelines and
// scripts (their references), a bake file that names a Dockerfile
// discovery would not find by its name (hclRefs), a Dockerfile that runs a
// file it copies (dockerfileRefs).
func ParsedForWhatItHolds(kind Kind, src []byte) bool {
	return kind == KindRequirements || kind == KindPipeline || kind == KindShell ||
		kind == KindHCL && namesOtherDockerfile(src) ||
		kind == KindDockerfile && copiesAndRuns(src)
}

// ParsedForBounds reports whether a file is parsed only so that the
// parsers' bounds are checked: over maxBareBytes, binary, or past a count
// taken before parsing. What it holds is otherwise that of a bare file
// (Unread).
func ParsedForBounds(kind Kind, src []byte) bool {
	return len(src) > maxBareBytes || bytes.IndexByte(src, 0) >= 0 || overBound(kind, src)
}

// Unread is a parsed document reduced to what a bare one holds — kind,
// path, real suppressions — plus its errors: a file parsed only for its
// bounds (ParsedForBounds) that says nothing the rules look for is
// evaluated like a bare file of its kind, whatever its size (a 2 MB
// Dockerfile of a million words converted in full took 1 GB).
func Unread(doc Document) Document {
	d := Empty(doc.DocKind(), doc.DocPath())
	if s := doc.DocSuppressions(); len(s) > 0 {
		d.(interface{ setSuppressions([]Suppression) }).setSuppressions(s)
	}
	setErrors(d, doc.DocErrors())
	return d
}

// namesOtherDockerfile reports, without parsing, whether a bake file
// names a Dockerfile (`dockerfile = "…"`) that discovery would not find by
// its name: only then is the file parsed for the reference (hclRefs).
func namesOtherDockerfile(src []byte) bool {
	for rest := src; ; {
		i := bytes.Index(rest, []byte("dockerfile"))
		if i < 0 {
			return false
		}
		rest = rest[i+len("dockerfile"):]
		v := bytes.TrimLeft(bytes.TrimPrefix(rest, []byte(`"`)), " \t")
		if !bytes.HasPrefix(v, []byte("=")) && !bytes.HasPrefix(v, []byte(":")) {
			continue // HCL's name = value, or JSON's "name": value
		}
		v = bytes.TrimLeft(v[1:], " \t")
		if !bytes.HasPrefix(v, []byte(`"`)) {
			return true // computed: cannot tell
		}
		end := bytes.IndexAny(v[1:], "\"\n")
		if end < 0 {
			return true
		}
		if k, ok := DetectName(string(v[1 : 1+end])); !ok || k != KindDockerfile || inSkippedDir(string(v[1:1+end])) {
			return true
		}
	}
}

// Bare is the document of a file that is not parsed because it says
// nothing the rules look for: its kind, path and no element. Its
// suppressions are its real ones (a marker in a real comment: which takes
// a parse, done only when the text holds one).
func Bare(kind Kind, rel string, src []byte) Document {
	d := Empty(kind, rel)
	if s := scanSuppressions(kind, bytes.TrimPrefix(src, utf8BOM)); s != nil {
		d.(interface{ setSuppressions([]Suppression) }).setSuppressions(Parse(kind, rel, src).DocSuppressions())
	}
	return d
}

// overBound runs the loaders' cheap counts that come before parsing: a
// file past one of those bounds is parsed at once, so that the bound is
// reported (BG001) whatever the file says.
func overBound(kind Kind, src []byte) bool {
	switch kind {
	case KindDockerfile:
		return instructionLines(src) > maxDockerInstrs
	case KindHCL:
		d, _, big := hclDepth(src)
		return d > maxHCLDepth || big != nil
	case KindShell:
		return bytes.Count(src, []byte{'$'})+bytes.Count(src, []byte{'`'}) > maxShellWords
	}
	return false
}

// Text is a file's text as the documents and the source builtins read it:
// without a UTF-8 byte order mark (a comment at the start of the file
// must read as a comment).
func Text(src []byte) []byte { return bytes.TrimPrefix(src, utf8BOM) }

// scriptNameRe is a script file's name as a build file writes it.
var scriptNameRe = regexp.MustCompile(`[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-]\.(?:sh|bash|py)\b`)

// maxScriptNames bounds the names ScriptNames returns.
const maxScriptNames = 256

// ScriptNames are the names of the script files a Dockerfile that is not
// parsed names (its base names, once each): what it copies and runs is of
// its platform (issue 28), and a Dockerfile that says nothing the rules
// look for is not parsed to learn it.
func ScriptNames(src []byte) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range scriptNameRe.FindAll(src, 4*maxScriptNames) {
		n := path.Base(string(m))
		if !seen[n] && len(out) < maxScriptNames {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
