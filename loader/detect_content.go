package loader

import (
	"bytes"
	"regexp"
	"strings"
)

// DetectText tells the kind of a file by its text alone, for a file the
// user named on the command line whatever its name (issue 32:
// `docker/Dockerfile-base`, `build/base.image`, a script without a
// shebang's extension): what its owner's tool would accept.
//
//   - a shell's shebang: shell;
//   - a first instruction (after blank lines, comments and parser
//     directives) that buildkit starts a Dockerfile with (FROM, ARG, or
//     a directive-only header followed by one): dockerfile;
//   - a first block that bake defines (target, group, variable, function
//     with a label and a brace): hcl;
//   - YAML whose top-level keys are a CI system's (jobs with on, steps,
//     stages, services with image/build): pipeline;
//   - lines that are all requirements or pip options, at least one a
//     requirement: requirements.
//
// head is the file's beginning (DetectHead bytes); a kind told from a
// prefix is what the loader then reads in full, and reports as errors
// where the rest disagrees.
func DetectText(head []byte) (Kind, bool) {
	if k, ok := DetectContent(head); ok {
		return k, true
	}
	text := string(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(head) >= DetectHead && len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last line may be cut
	}
	switch {
	case dockerfileText(lines):
		return KindDockerfile, true
	case hclText(lines):
		return KindHCL, true
	case pipelineText(lines):
		return KindPipeline, true
	case requirementsText(lines):
		return KindRequirements, true
	}
	return "", false
}

// DetectHead is how much of a file DetectText looks at.
const DetectHead = 8 << 10

var (
	// A Dockerfile's first instruction as buildkit reads it: FROM with
	// its flags, one image and an optional AS name, or ARG with names
	// and defaults; not Python's `from os import path` nor prose.
	dockerfileFirstRe = regexp.MustCompile(`(?i)^\s*(from(\s+--[a-z-]+=\S+)*\s+\S+(\s+as\s+\S+)?|arg\s+[A-Za-z_][A-Za-z0-9_]*(=\S*|="[^"]*")?(\s+[A-Za-z_][A-Za-z0-9_]*(=\S*)?)*)\s*$`)
	hclBlockRe        = regexp.MustCompile(`^\s*(target|group|variable|function)\s+"[^"]*"\s*\{`)
	yamlTopKeyRe      = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*|"[^"]*"|'[^']*')\s*:(\s|$)`)
	requirementRe     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*\s*(\[[A-Za-z0-9._,\s-]*\])?\s*((===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+\s*(,\s*(===|==|!=|~=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+\s*)*)?(;.*|@\s*\S+.*)?(\s+--hash=\S+)*\s*(\\)?$`)
	pipOptionRe       = regexp.MustCompile(`^(-[rcef]\s*\S|--(requirement|constraint|editable|find-links|index-url|extra-index-url|no-index|pre|trusted-host|prefer-binary|only-binary|no-binary|hash|use-feature|config-settings)\b)`)
)

// significant are a text's lines that are neither blank nor comments.
func significant(lines []string, comment string) []string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, comment) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// dockerfileText: the first instruction is FROM or ARG (buildkit refuses
// a Dockerfile whose first instruction is another, ARGs aside).
func dockerfileText(lines []string) bool {
	s := significant(lines, "#")
	return len(s) > 0 && dockerfileFirstRe.MatchString(s[0])
}

// hclText: the first significant line opens a block bake defines.
func hclText(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") {
			continue
		}
		if strings.Contains(t, "=") && !strings.Contains(t, "{") {
			continue // a top-level attribute (bake reads them as variables)
		}
		return hclBlockRe.MatchString(l)
	}
	return false
}

// pipelineText: YAML whose top-level keys name a CI system's structure:
// GitHub Actions' `on` and `jobs`, Buildkite's `steps`, GitLab's
// `stages` or a job with `script`, compose's `services`.
func pipelineText(lines []string) bool {
	keys := map[string]bool{}
	script := false
	for _, l := range lines {
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" || l == "---" {
			continue
		}
		if l[0] != ' ' && l[0] != '\t' && l[0] != '-' {
			m := yamlTopKeyRe.FindStringSubmatch(l)
			if m == nil {
				return false // not YAML's top-level mapping
			}
			keys[strings.Trim(m[1], `"'`)] = true
			continue
		}
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "script:") {
			script = true
		}
	}
	switch {
	case keys["jobs"] && (keys["on"] || keys["true"] || keys["name"]),
		keys["steps"],
		keys["stages"] || keys["include"] && script,
		keys["services"]:
		return true
	}
	return script && len(keys) > 0
}

// requirementsText: every significant line is a requirement (PEP 508,
// with pip's hashes and continuations) or a pip option, and one at least
// is a requirement.
func requirementsText(lines []string) bool {
	reqs := 0
	for _, l := range significant(lines, "#") {
		if i := strings.Index(l, " #"); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		switch {
		case pipOptionRe.MatchString(l):
		case requirementRe.MatchString(l):
			reqs++
		default:
			return false
		}
	}
	return reqs > 0
}
