package engine

import (
	"bytes"
	"encoding/base64"
	"unicode/utf8"
)

// looseDecode undoes, loosely, what a build file's formats let a name hide
// behind: quotes and line continuations that split a word (moon""cake,
// Moon\<newline>cake, HCL's "${"moon"}cake"), and escapes that spell a
// letter (bash's $'\x6d', HCL's "\u006d", octal \155). It is not any
// format's decoding; it only has to contain every name a format could
// decode, so that buildgate.source_contains cannot be told "no" by an
// escape (issue 13). Quote characters, "${" and "}" are dropped, escapes
// are decoded, any other backslash is dropped.
func looseDecode(src []byte) []byte {
	dec := looseText(src)
	if bytes.Contains(src, []byte("!!binary")) {
		// YAML's !!binary is base64 a CI system decodes and runs.
		if dec == nil {
			dec = bytes.Clone(src)
		}
		dec = append(dec, yamlBinaries(src)...)
	}
	return dec
}

// looseText is looseDecode of the text's quotes, continuations and
// escapes (nil when there are none).
func looseText(src []byte) []byte {
	out, differs := appendLooseText(make([]byte, 0, len(src)), src)
	if !differs {
		return nil
	}
	return out
}

// appendLooseText appends looseText's decoding of src to dst, and reports
// whether it differs from src (when it does not, what was appended is src
// or nothing).
func appendLooseText(dst, src []byte) ([]byte, bool) {
	if !bytes.ContainsAny(src, "\\\"'`${}%") {
		return dst, false
	}
	start := len(dst)
	out := dst
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"', '\'', '`', '}':
			// A backquote ends a line in a Dockerfile with `# escape=``.
			if c == '`' && i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			continue
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				i++
				continue
			}
		case '%':
			// A URL's percent-escape (…/kvcache-ai/%4Dooncake.git).
			if r, n := hexRune(src[i+1:], 2); n == 2 {
				out = utf8.AppendRune(out, r)
				i += 2
				continue
			}
		case '\\':
			if i+1 >= len(src) {
				continue
			}
			r, n := decodeEscape(src[i+1:])
			if n == 0 {
				continue // a continuation, or a backslash before itself
			}
			i += n
			if r >= 0 {
				out = utf8.AppendRune(out, r)
			} else {
				// An escaped line break: YAML's double-quoted scalars
				// also drop the next line's indentation ("MOON\
				//     CAKE" is MOONCAKE).
				for i+1 < len(src) && (src[i+1] == ' ' || src[i+1] == '\t') {
					i++
				}
			}
			continue
		}
		out = append(out, c)
	}
	return out, !bytes.Equal(out[start:], src)
}

// decodeEscape reads the escape after a backslash: the rune it spells (-1
// for none) and the bytes it takes.
func decodeEscape(s []byte) (rune, int) {
	switch c := s[0]; {
	case c == '\n':
		return -1, 1
	case c == '\r' && len(s) > 1 && s[1] == '\n':
		return -1, 2
	case c == 'x' || c == 'u' || c == 'U':
		digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		if r, n := hexRune(s[1:], digits); n > 0 {
			return r, n + 1
		}
		return rune(c), 1
	case c >= '0' && c <= '7':
		v, n := rune(0), 0
		for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			v = v*8 + rune(s[n]-'0')
			n++
		}
		return v, n
	default:
		r, n := utf8.DecodeRune(s)
		return r, n
	}
}

// hexRune reads up to max hex digits: the rune (-1 when not one) and the
// digits read.
func hexRune(s []byte, max int) (rune, int) {
	v, n := rune(0), 0
	for n < max && n < len(s) {
		d := hexDigit(s[n])
		if d < 0 {
			break
		}
		v = v*16 + rune(d)
		n++
	}
	if !utf8.ValidRune(v) {
		return -1, n
	}
	return v, n
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// yamlBinaries are the decoded payloads of a text's !!binary scalars (the
// base64 after each tag, white space, block indicators and quotes
// skipped), each after a line break.
func yamlBinaries(src []byte) []byte {
	var out []byte
	for rest := src; ; {
		i := bytes.Index(rest, []byte("!!binary"))
		if i < 0 {
			return out
		}
		rest = rest[i+len("!!binary"):]
		var b64 []byte
		j := 0
	scan:
		for ; j < len(rest); j++ {
			c := rest[j]
			switch {
			case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/':
				b64 = append(b64, c)
			case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '|' || c == '>' || c == '-' || c == '"' || c == '\'':
			default:
				// = pads the end of the base64; anything else ends it.
				break scan
			}
		}
		b64 = b64[:len(b64)/4*4]
		dec := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
		if n, err := base64.StdEncoding.Decode(dec, b64); err == nil || n > 0 {
			out = append(append(out, '\n'), dec[:n]...)
		}
		rest = rest[j:]
	}
}
