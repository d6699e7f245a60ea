package loader

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// hclDepth bounds, from hclsyntax's own tokens, how deep its parser will
// recurse on src: one level per bracket, quote, heredoc and template
// sequence, one per template directive (%{if}, %{for}) until its end, and
// one per operator in an expression (unary and conditional operators
// recurse; binary chains build a tree that deep). Operators count until
// the next comma or newline at their level. Using the parser's own lexer,
// the bound cannot be dodged by quoting; it can only overestimate. It
// returns the deepest bound and the token where it was reached.
func hclDepth(src []byte) (int, hcl.Range) {
	tokens, _ := hclsyntax.LexConfig(src, "", hcl.InitialPos)
	type level struct{ ops int }
	var stack []level
	total, deepest := 0, 0
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
			stack = append(stack, level{})
			total++
			reach(t)
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCQuote,
			hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			if len(stack) > 0 {
				total -= 1 + stack[len(stack)-1].ops
				stack = stack[:len(stack)-1]
			}
		case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPercent,
			hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual, hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq,
			hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq, hclsyntax.TokenAnd, hclsyntax.TokenOr,
			hclsyntax.TokenBang, hclsyntax.TokenQuestion, hclsyntax.TokenColon, hclsyntax.TokenFatArrow,
			hclsyntax.TokenEllipsis, hclsyntax.TokenDot:
			if len(stack) > 0 {
				stack[len(stack)-1].ops++
			} else {
				stack = append(stack, level{ops: 1})
				total++ // an expression at the top: its own level
			}
			total++
			reach(t)
		case hclsyntax.TokenComma, hclsyntax.TokenNewline:
			if len(stack) > 0 {
				total -= stack[len(stack)-1].ops
				stack[len(stack)-1].ops = 0
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
	return deepest, at
}
