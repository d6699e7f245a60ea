package loader

// assocKeys makes bash associative-array subscripts readable to mvdan/sh,
// which reads every subscript as arithmetic: `${alias[$repo:$variant]}`,
// `[:onbuild]=1` and `([3.14]='3 latest')` are valid bash but "ternary
// operator missing ?" or "floating point arithmetic" to it. In a subscript
// (a "[" after a name, or an array element's "[key]=") each ":" and "."
// outside quotes and substitutions becomes "+", which keeps offsets and
// keeps the subscript an expression. Only the text the parser sees
// changes; words and positions come from the original, and nothing inside
// a $(…), ${…}, `…` or quotes is touched, so no command can be hidden or
// altered by it. It reports whether anything changed.
func assocKeys(text []byte) ([]byte, bool) {
	var out []byte
	for i := 1; i < len(text); i++ {
		if text[i] != '[' || !subscriptStart(text, i) {
			continue
		}
		var marks []int
		depth, quote := 0, byte(0)
		end := -1
	scan:
		for j := i + 1; j < len(text); j++ {
			c := text[j]
			switch {
			case c == '\n':
				break scan
			case quote != 0:
				if c == '\\' && quote == '"' {
					j++
				} else if c == quote {
					quote = 0
				}
			case c == '\\':
				j++
			case c == '\'' || c == '"' || c == '`':
				quote = c
			case c == '(' || c == '{' || c == '[':
				depth++
			case c == ')' || c == '}':
				depth--
			case c == ']':
				if depth == 0 {
					end = j
					break scan
				}
				depth--
			case depth == 0 && (c == ':' || c == '.'):
				marks = append(marks, j)
			}
		}
		if end < 0 || len(marks) == 0 {
			continue
		}
		if out == nil {
			out = append([]byte(nil), text...)
		}
		for _, m := range marks {
			out[m] = '+'
		}
		i = end
	}
	if out == nil {
		return text, false
	}
	return out, true
}

// subscriptStart: the "[" at i follows a name (a[…], ${a[…]}), or starts
// an element of an array literal: after "(" or blank, closed on its line
// and followed by "=" or "+=".
func subscriptStart(text []byte, i int) bool {
	p := text[i-1]
	if p == '_' || p >= 'a' && p <= 'z' || p >= 'A' && p <= 'Z' || p >= '0' && p <= '9' {
		return true
	}
	if p != '(' && p != ' ' && p != '\t' && p != '\n' {
		return false
	}
	for j := i + 1; j < len(text) && text[j] != '\n'; j++ {
		if text[j] == ']' {
			return j+1 < len(text) && (text[j+1] == '=' || j+2 < len(text) && text[j+1] == '+' && text[j+2] == '=')
		}
	}
	return false
}
