package loader

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzNormalizeName: the byte loop is PEP 503's re.sub(r"[-_.]+", "-",
// name).lower(), as the regular expression it replaced spelled it.
func FuzzNormalizeName(f *testing.F) {
	re := regexp.MustCompile(`[-_.]+`)
	for _, s := range []string{"Mooncake_Transfer.Engine--ROCM", "a..b__c", "İstanbul", "x\xffY", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NormalizeName(s), strings.ToLower(re.ReplaceAllString(s, "-")); got != want {
			t.Fatalf("NormalizeName(%q) = %q, want %q", s, got, want)
		}
	})
}
