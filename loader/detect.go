package loader

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// SkippedDirs are directory names discovery never descends into: version
// control, dependency caches and vendored trees hold no build files of
// the repository's own. A file there that a build names (a bake target's
// vendor/x/Dockerfile) is read by reference.
var SkippedDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "vendor": true,
	".venv": true, "venv": true, "__pycache__": true, ".tox": true, ".mypy_cache": true,
}

// inSkippedDir reports whether a path has a directory discovery skips.
func inSkippedDir(p string) bool {
	for _, part := range strings.Split(path.Dir(p), "/") {
		if SkippedDirs[part] {
			return true
		}
	}
	return false
}

// DetectName returns the kind a file's name claims, as the brief's table
// says. Files without an extension may still be shell scripts by their
// shebang: see NeedsContent and DetectContent.
func DetectName(rel string) (Kind, bool) {
	base := path.Base(rel)
	lower := strings.ToLower(base)
	switch {
	case base == "Dockerfile" || strings.HasPrefix(base, "Dockerfile.") && !otherLanguage[strings.ToLower(strings.TrimPrefix(path.Ext(base), "."))] ||
		strings.HasSuffix(base, ".Dockerfile") || strings.HasSuffix(base, ".dockerfile"):
		return KindDockerfile, true
	case containerfileName(lower):
		return KindDockerfile, true
	case strings.HasSuffix(lower, ".hcl"),
		strings.HasPrefix(lower, "docker-bake") && strings.HasSuffix(lower, ".json"):
		// docker-bake.json: bake's definition in HCL's JSON syntax.
		return KindHCL, true
	case strings.HasSuffix(lower, ".txt") && (strings.HasPrefix(lower, "requirements") ||
		strings.HasPrefix(lower, "constraints") || underDir(rel, "requirements")):
		return KindRequirements, true
	case strings.HasSuffix(lower, ".sh") || strings.HasSuffix(lower, ".bash"):
		return KindShell, true
	case recipeFlavor(rel) != "":
		// Makefiles and justfiles: their recipes are shell (recipes.go).
		return KindShell, true
	case path.Dir(rel) == ".buildkite/hooks" && slices.Contains(BuildkiteHooks, base):
		// The agent runs a repository's hooks whatever their first line.
		return KindShell, true
	case pipelineSystem(rel) != "":
		return KindPipeline, true
	}
	return "", false
}

// containerfileName reports whether a name (lowercased) is one of the
// other names builds give a Dockerfile: buildkit's lowercase default
// `dockerfile`, podman's and buildah's `Containerfile`, and the variants
// `Dockerfile-rocm`, `Dockerfile_rocm`, `Containerfile.rocm`,
// `rocm.containerfile`; a name with another language's extension
// (`dockerfile_test.go`, `dockerfile.py`) is that language's file.
func containerfileName(lower string) bool {
	for _, stem := range []string{"dockerfile", "containerfile"} {
		switch {
		case lower == stem, strings.HasSuffix(lower, "."+stem):
			return true
		case strings.HasPrefix(lower, stem+".") || strings.HasPrefix(lower, stem+"-") || strings.HasPrefix(lower, stem+"_"):
			return !otherLanguage[strings.TrimPrefix(path.Ext(lower), ".")]
		}
	}
	return false
}

// otherLanguage are extensions of files that are not Dockerfiles whatever
// their stem says.
var otherLanguage = map[string]bool{"go": true, "py": true, "md": true, "rst": true, "txt": true, "json": true, "yml": true, "yaml": true,
	"toml": true, "sh": true, "bash": true, "rs": true, "js": true, "ts": true, "java": true, "rb": true, "c": true, "h": true,
	"cc": true, "cpp": true, "hcl": true, "html": true, "xml": true, "orig": true, "bak": true, "swp": true, "lock": true, "sum": true,
	"mod": true, "snap": true, "golden": true, "tar": true, "gz": true, "zip": true,
	// Pictures and documents about a Dockerfile (vLLM's
	// docker/dockerfile-stages-dependency.png, issue 30's sweep).
	"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true, "bmp": true, "ico": true,
	"pdf": true, "dot": true, "mmd": true, "puml": true, "drawio": true, "csv": true, "tsv": true,
	"ipynb": true, "log": true, "patch": true, "diff": true}

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

// shebangRe is a POSIX-family shell's #! line: sh, bash, dash, zsh, ksh,
// mksh, ash, yash, posh, directly or through env (with its options and
// NAME=value words: `#!/usr/bin/env -S VAR=1 bash`).
var shebangRe = regexp.MustCompile(`^#![ \t]*(\S*/)?(env[ \t]+(-\S+[ \t]+|\w+=\S*[ \t]+)*)?(ba|da|z|k|mk|a|ya|po)?sh([ \t]|$)`)

// DetectContent recognises a shell's shebang on the first line.
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
