package loader

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// hclDepth bounds, from hclsyntax's own tokens, how deep its parser will
// recurse on src: one level per bracket, quote, heredoc and template
// sequence, one per template directive (%{if}, %{for}) until its end, and
// one per operator in an expression (unary and conditional operators
// recurse; binary chains build a tree that deep) and per bracketed group
// that closes (a traversal chain a[0][0]…, a splat [*] recurses once per
// step). Operators count until the next comma at their level, or the next
// newline where newlines end an expression (the top level and braces:
// inside ( and [ the parser skips them). Using the parser's own lexer, the
// bound cannot be dodged by quoting; it can only overestimate. It returns
// the deepest bound and the token where it was reached.
//
// It also returns the first number literal too large to compute with (an
// exponent of four digits or more, or over 100 digits: cty writes 1e10000000
// out in full, 24 s for a 15-byte file), or nil.
func hclDepth(src []byte) (int, hcl.Range, *hcl.Range) {
	var bigNumber *hcl.Range
	tokens, _ := hclsyntax.LexConfig(src, "", hcl.InitialPos)
	type level struct {
		ops    int
		brace  bool // a {…} body or object, or the top level: newlines end expressions there
		closes bool // a bracket whose closing adds a step to the level around it
	}
	// The top level is a level of its own (never closed): expressions of
	// attributes outside any block count there.
	stack := []level{{brace: true}}
	total, deepest := 1, 0
	var at hcl.Range
	directives := 0
	afterControl := false
	reach := func(t hclsyntax.Token) {
		if d := total + directives; d > deepest {
			deepest, at = d, t.Range
		}
	}
	for _, t := range tokens {
		switch t.Type {
		case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen, hclsyntax.TokenOQuote,
			hclsyntax.TokenOHeredoc, hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
			stack = append(stack, level{
				brace:  t.Type == hclsyntax.TokenOBrace,
				closes: t.Type == hclsyntax.TokenOBrack || t.Type == hclsyntax.TokenOParen || t.Type == hclsyntax.TokenOBrace,
			})
			total++
			reach(t)
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCQuote,
			hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			if len(stack) > 1 {
				top := stack[len(stack)-1]
				total -= 1 + top.ops
				stack = stack[:len(stack)-1]
				if top.closes && len(stack) > 0 {
					stack[len(stack)-1].ops++
					total++
					reach(t)
				}
			}
		case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPercent,
			hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual, hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq,
			hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq, hclsyntax.TokenAnd, hclsyntax.TokenOr,
			hclsyntax.TokenBang, hclsyntax.TokenQuestion, hclsyntax.TokenColon, hclsyntax.TokenFatArrow,
			hclsyntax.TokenEllipsis, hclsyntax.TokenDot:
			stack[len(stack)-1].ops++
			total++
			reach(t)
		case hclsyntax.TokenComma, hclsyntax.TokenNewline:
			if t.Type == hclsyntax.TokenComma || stack[len(stack)-1].brace {
				total -= stack[len(stack)-1].ops
				stack[len(stack)-1].ops = 0
			}
		case hclsyntax.TokenNumberLit:
			if bigNumber == nil && hugeNumber(t.Bytes) {
				r := t.Range
				bigNumber = &r
			}
		case hclsyntax.TokenIdent:
			if afterControl {
				switch string(t.Bytes) {
				case "if", "for":
					directives++
					reach(t)
				case "endif", "endfor":
					if directives > 0 {
						directives--
					}
				}
			}
		}
		afterControl = t.Type == hclsyntax.TokenTemplateControl
	}
	return deepest, at, bigNumber
}

// hugeNumber: more than 100 digits, or an exponent of four digits or more.
func hugeNumber(lit []byte) bool {
	if len(lit) > 100 {
		return true
	}
	for i, c := range lit {
		if c == 'e' || c == 'E' {
			exp := strings.TrimLeft(string(lit[i+1:]), "+-")
			return len(strings.TrimLeft(exp, "0")) >= 4
		}
	}
	return false
}
