package loader

import (
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A script a build writes and then runs is code of the build (issue 28):
// `cat > /tmp/b.sh <<'EOS' … EOS` followed by `bash /tmp/b.sh`, in the same
// script or a later RUN, and a Dockerfile's `COPY <<EOS /tmp/b.sh`
// (dockerfile_copy.go). The here-document is parsed as the script it
// becomes when the file it is written to looks like one (a .sh or .bash
// name, a shell's #!) or is named again after it (run, chmod-ed, sourced).

// writtenScript parses the here-document that cat or tee writes to a file
// that is a script.
func (x *shellExtractor) writtenScript(st *syntax.Stmt) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) == 0 || len(call.Args) == 0 {
		return
	}
	file, hdoc := writtenFile(call, st.Redirs)
	if hdoc == nil || file == "" || file == "/dev/null" {
		return
	}
	after := x.str[min(max(x.off(st.End()), 0), len(x.str)):]
	if !scriptFile(file, x.nodeText(hdoc.Hdoc), after, x.src.rest) {
		return
	}
	x.nestedScript(call.Args[0], hdoc.Hdoc, x.heredocText(hdoc))
}

// writtenFile is the file a command writes its here-document to (cat >
// F, tee F, install /dev/stdin F, dd of=F) and that here-document.
func writtenFile(call *syntax.CallExpr, redirs []*syntax.Redirect) (string, *syntax.Redirect) {
	name, _ := wordLiteral(call.Args[0])
	name = path.Base(name)
	if name != "cat" && name != "tee" && name != "install" && name != "dd" {
		return "", nil
	}
	var file string
	var hdoc *syntax.Redirect
	for _, r := range redirs {
		switch {
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			hdoc = r
		case (r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.RdrClob) && r.Word != nil && name == "cat":
			file, _ = wordLiteral(r.Word)
		}
	}
	switch name {
	case "tee":
		for _, a := range call.Args[1:] {
			if v, ok := wordLiteral(a); ok && !strings.HasPrefix(v, "-") {
				file = v
				break
			}
		}
	case "install":
		// install [-m MODE] /dev/stdin FILE: the last word, when the
		// source is standard input.
		if n := len(call.Args); n >= 3 {
			src, _ := wordLiteral(call.Args[n-2])
			if stdinPaths[src] || src == "-" {
				file, _ = wordLiteral(call.Args[n-1])
			}
		}
	case "dd":
		for _, a := range call.Args[1:] {
			if v, ok := wordLiteral(a); ok && strings.HasPrefix(v, "of=") {
				file = strings.TrimPrefix(v, "of=")
			}
		}
	}
	return file, hdoc
}

// scriptFile reports whether a file written with body is a shell script the
// build runs: a .sh or .bash name, a shell's #! (or none and the file
// named again after it: run, sourced, chmod-ed).
func scriptFile(file, body, after string, rest []byte) bool {
	if strings.HasSuffix(file, ".sh") || strings.HasSuffix(file, ".bash") {
		return true
	}
	if strings.HasPrefix(body, "#!") {
		line, _, _ := strings.Cut(body[2:], "\n")
		return nestedShells[shebangProgram(line)]
	}
	if ext := path.Ext(file); ext != "" {
		return false // another language's file (.py, .pl, .json …)
	}
	// Run after it: by a shell, sourced, or as a command by its path (a
	// file only read or removed after is data).
	re := runRe(file)
	return re.MatchString(after) || re.Match(rest)
}

// runRe matches a command that runs file: a shell or source with it as
// its script, or the file as a command (after a line start, ;, &, |, (,
// or a wrapper such as sudo or exec).
func runRe(file string) *regexp.Regexp {
	f := regexp.QuoteMeta(file)
	b := regexp.QuoteMeta(path.Base(file))
	return regexp.MustCompile(`(?m)(\b(?:ba|da|k|z)?sh|\bsource|(?:^|[\s;&|(])\.)(?:\s+-\S+)*\s+["']?(?:\S*/)?` + b + `["']?(?:\s|$|;|&|\))` +
		`|(?:^|[;&|(]|\bsudo|\bexec|(?i:\brun))\s*["']?` + f + `["']?(?:\s|$|;|&|\))`)
}
