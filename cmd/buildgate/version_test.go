package main

import (
	"runtime/debug"
	"testing"
)

// Issue 15: a real version in every build users get.
func TestVersionOf(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified},
		}}
	}
	cases := []struct {
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		{"v1.4.0", vcs("abc", "false"), "v1.4.0"},                               // the Action's -X main.version
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.2"}}, "v1.3.2"}, // go install …@v1.3.2
		{"", vcs("0123456789abcdef0123", "false"), "devel+0123456789ab"},
		{"", vcs("0123456789abcdef0123", "true"), "devel+0123456789ab.dirty"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"}, // a tarball: no commit
		{"", nil, "devel"},
	}
	for _, c := range cases {
		if got := versionOf(c.linked, c.bi); got != c.want {
			t.Errorf("versionOf(%q, …) = %q, want %q", c.linked, got, c.want)
		}
	}
}
