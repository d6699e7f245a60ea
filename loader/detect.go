package loader

import (
	"path"
	"regexp"
	"strings"
)

// DetectName returns the kind a file's name claims, as the brief's table
// says. Files without an extension may still be shell scripts by their
// shebang: see NeedsContent and DetectContent.
func DetectName(rel string) (Kind, bool) {
	base := path.Base(rel)
	lower := strings.ToLower(base)
	switch {
	case base == "Dockerfile" || strings.HasPrefix(base, "Dockerfile.") ||
		strings.HasSuffix(base, ".Dockerfile") || strings.HasSuffix(base, ".dockerfile"):
		return KindDockerfile, true
	case strings.HasSuffix(lower, ".hcl"):
		return KindHCL, true
	case strings.HasSuffix(lower, ".txt") && (strings.HasPrefix(lower, "requirements") ||
		strings.HasPrefix(lower, "constraints") || underDir(rel, "requirements")):
		return KindRequirements, true
	case strings.HasSuffix(lower, ".sh") || strings.HasSuffix(lower, ".bash"):
		return KindShell, true
	case pipelineSystem(rel) != "":
		return KindPipeline, true
	}
	return "", false
}

func underDir(rel, dir string) bool {
	parts := strings.Split(path.Dir(rel), "/")
	for _, p := range parts {
		if p == dir {
			return true
		}
	}
	return false
}

// NeedsContent reports whether a file's kind depends on its first line: a
// file with no extension that no name rule claims.
func NeedsContent(rel string) bool {
	base := path.Base(rel)
	if _, ok := DetectName(rel); ok {
		return false
	}
	return !strings.Contains(strings.TrimPrefix(base, "."), ".")
}

var shebangRe = regexp.MustCompile(`^#![ \t]*(\S*/)?(env[ \t]+(-\S+[ \t]+)*)?(ba)?sh([ \t]|$)`)

// DetectContent recognises a sh or bash shebang on the first line.
func DetectContent(head []byte) (Kind, bool) {
	line := string(head)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSuffix(line, "\r")
	if shebangRe.MatchString(line) {
		return KindShell, true
	}
	return "", false
}

// ParseKind reads a kind name given by a user.
func ParseKind(s string) (Kind, bool) {
	for _, k := range Kinds {
		if string(k) == strings.ToLower(s) {
			return k, true
		}
	}
	return "", false
}
