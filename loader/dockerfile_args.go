package loader

import (
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
)

// How buildkit's parser splits each instruction's arguments (the dispatch
// table of parser.go), so that an instruction's args are the words of its
// node: checked against buildkit's own testfiles (TestBuildkitConformance).

// argTokens splits an instruction's arguments from offset rest the way
// buildkit's parser does for its command:
//   - exec form (a JSON array): its strings (parseMaybeJSON);
//   - RUN, CMD, ENTRYPOINT, SHELL, MAINTAINER, USER, WORKDIR, STOPSIGNAL,
//     ONBUILD: the rest as one word (parseMaybeJSON, parseString,
//     parseSubCommand);
//   - ADD, COPY, VOLUME, EXPOSE, FROM: split on white space alone, quotes
//     and escapes kept in the words (parseStringsWhitespaceDelimited);
//   - HEALTHCHECK: its type (CMD, NONE …), then the rest as one word or
//     the strings of a JSON array (parseHealthConfig);
//   - ARG, ENV, LABEL and the rest: split on white space outside quotes.
func argTokens(cmd string, execForm bool, text []byte, rest int, escape byte) []token {
	switch cmd {
	case "healthcheck":
		return healthTokens(text, rest)
	case "run", "cmd", "entrypoint", "shell", "maintainer", "user", "workdir", "stopsignal", "onbuild":
		if execForm && cmd != "onbuild" {
			return jsonTokens(text, rest)
		}
		if rest < len(text) {
			return []token{{rest, len(text)}}
		}
		return nil
	case "add", "copy", "volume", "expose", "from":
		if execForm {
			return jsonTokens(text, rest)
		}
		return whitespaceTokens(text, rest)
	}
	if execForm {
		return jsonTokens(text, rest)
	}
	return splitTokens(text, rest, escape)
}

// healthTokens is parseHealthConfig: the first word, then the rest.
func healthTokens(text []byte, rest int) []token {
	ws := whitespaceTokens(text, rest)
	if len(ws) == 0 {
		return nil
	}
	first := ws[0]
	at := first.end
	for at < len(text) && isDockerSpace(text[at]) {
		at++
	}
	if at >= len(text) {
		return []token{first}
	}
	if text[at] == '[' {
		if js := jsonTokens(text, at); len(js) > 0 {
			return append([]token{first}, js...)
		}
	}
	return []token{first, {at, len(text)}}
}

// isDockerSpace is buildkit's tokenWhitespace, [\t\v\f\r ].
func isDockerSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n'
}

// whitespaceTokens splits on white space alone.
func whitespaceTokens(text []byte, at int) []token {
	var out []token
	for i := at; i < len(text); {
		for i < len(text) && isDockerSpace(text[i]) {
			i++
		}
		start := i
		for i < len(text) && !isDockerSpace(text[i]) {
			i++
		}
		if i > start {
			out = append(out, token{start, i})
		}
	}
	return out
}

// token is a span of the logical text.
type token struct{ start, end int }

// splitTokens splits text on white space outside quotes, from offset at.
func splitTokens(text []byte, at int, escape byte) []token {
	var out []token
	i := at
	space := func(c byte) bool { return isShellSpace(c) || c == '\v' || c == '\f' }
	for i < len(text) {
		for i < len(text) && space(text[i]) {
			i++
		}
		if i >= len(text) {
			break
		}
		start := i
		var quote byte
		for i < len(text) {
			c := text[i]
			if c == escape && i+1 < len(text) {
				i += 2
				continue
			}
			if quote != 0 {
				if c == quote {
					quote = 0
				}
			} else if c == '"' || c == '\'' {
				quote = c
			} else if space(c) {
				break
			}
			i++
		}
		out = append(out, token{start, i})
	}
	return out
}

// jsonTokens finds the string literals of an exec-form JSON array.
func jsonTokens(text []byte, at int) []token {
	var out []token
	for i := at; i < len(text); i++ {
		if text[i] != '"' {
			continue
		}
		start := i
		for i++; i < len(text) && text[i] != '"'; i++ {
			if text[i] == '\\' {
				i++
			}
		}
		out = append(out, token{start, min(i+1, len(text))})
	}
	return out
}

func nodeArgs(n *parser.Node) []string {
	var out []string
	for a := n.Next; a != nil; a = a.Next {
		out = append(out, a.Value)
	}
	return out
}

// noEnv is an environment with no variables, for buildkit's lexer.
type noEnv struct{}

func (noEnv) Get(string) (string, bool) { return "", false }
func (noEnv) Keys() []string            { return nil }

// dockerValue is an ENV or LABEL value (or an ARG default) as the builder
// sets it: quotes and escapes processed by buildkit's own lexer. A value
// with a variable in it keeps the variable as written and has only its
// surrounding quotes removed, since what the variable holds is not known.
func dockerValue(raw string, escape byte) string {
	if !strings.ContainsRune(raw, '$') {
		if v, _, err := shell.NewLex(rune(escape)).ProcessWord(raw, noEnv{}); err == nil {
			return v
		}
	}
	return unquote(raw)
}

// unquote removes one level of surrounding quotes, as the builder does when
// it expands an ARG default or ENV value (variables stay as written).
func unquote(s string) string {
	if len(s) >= 2 && s[0] == s[len(s)-1] && (s[0] == '"' || s[0] == '\'') {
		inner := s[1 : len(s)-1]
		if s[0] == '"' {
			inner = unescapeDouble(inner)
		}
		return inner
	}
	return s
}
