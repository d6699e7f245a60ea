package engine

import (
	"bytes"
	"strings"
	"testing"
)

func TestLooseDecode(t *testing.T) {
	cases := []struct{ src, want string }{
		{`git clone https://github.com/kvcache-ai/Moon""cake`, "mooncake"},
		{"ARG R=Moon\\\ncake", "mooncake"},
		{"ARG R=Moon`\ncake", "mooncake"},
		{`R=$'\x6dooncake'`, "mooncake"},
		{`R=$'\155ooncake'`, "mooncake"},
		{`repo = "\u006dooncake"`, "mooncake"},
		{`repo = "\U0000006dooncake"`, "mooncake"},
		{`repo = "${"moon"}cake"`, "mooncake"},
		{`R=moon\cake`, "mooncake"},
		{"R=moon'c'ake", "mooncake"},
		{`\xzz`, "xzz"},
		{`\u{`, "u"},
		{`\`, ""},
		// Issue 19's review: YAML's escaped line break drops the next
		// line's indentation; !!binary is base64 a CI system runs.
		{"\"MOON\\\n      CAKE_BRANCH=main\"", "mooncake_branch"},
		{"script:\n  - !!binary ZG9ja2VyIGJ1aWxkIC0tYnVpbGQtYXJnIE1PT05DQUtFX0JSQU5DSD1tYWluIC4=\n", "mooncake_branch"},
		{"a: !!binary |\n  ZG9ja2VyIGJ1aWxkIC0tYnVpbGQtYXJnIE1P\n  T05DQUtFX0JSQU5DSD1tYWluIC4=\nb: !!binary bW9vbmNha2U=\n", "mooncake"},
	}
	for _, tc := range cases {
		got := strings.ToLower(string(looseDecode([]byte(tc.src))))
		if !strings.Contains(got, tc.want) {
			t.Errorf("looseDecode(%q) = %q, want it to contain %q", tc.src, got, tc.want)
		}
	}
	if looseDecode([]byte("FROM base\nRUN make\n")) != nil {
		t.Error("text with nothing to decode: want nil (no second copy)")
	}
}

// FuzzLooseDecode: any bytes decode without panicking, into no more
// bytes than four per input byte (a one-byte escape spells at most a
// four-byte rune).
func FuzzLooseDecode(f *testing.F) {
	for _, s := range []string{`$'\x6d'`, `"\u006d"`, `\U0010FFFF`, `\777`, "a\\\r\nb", `${"a"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out := looseDecode(src)
		if len(out) > 4*len(src) {
			t.Fatalf("%d bytes from %d", len(out), len(src))
		}
		if out != nil && bytes.Equal(out, src) {
			t.Fatal("unchanged text returned")
		}
	})
}

// FuzzHaystack: the haystack source_contains searches, built in a reused
// buffer, is exactly the source in lower case followed, when its loose
// decoding differs, by a line break and that decoding in lower case (the
// copies it was made of before the buffer was reused).
func FuzzHaystack(f *testing.F) {
	for _, s := range []string{"FROM base\nRUN make\n", `RUN git clone https://x/Moon""Cake`, "a: !!binary bW9vbmNha2U=\n",
		"ÄRG X=Moon\\\ncake", "\xff\xfeM\x00", `"\u0130"`, "İ", "!!binary", ""} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, src []byte, prefix int) {
		want := bytes.ToLower(src)
		if dec := looseDecode(src); dec != nil {
			want = append(append(want, '\n'), bytes.ToLower(dec)...)
		}
		dst := bytes.Repeat([]byte("X"), prefix&63)
		got := appendHaystack(dst, src)
		if !bytes.Equal(got[:len(dst)], bytes.Repeat([]byte("X"), prefix&63)) || !bytes.Equal(got[len(dst):], want) {
			t.Fatalf("appendHaystack(%q) = %q, want %q", src, got[len(dst):], want)
		}
	})
}
