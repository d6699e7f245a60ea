package buildgate.rules.example.no_pipe_to_shell_test

import data.buildgate.rules.example.no_pipe_to_shell as rule

findings(kind, lines) := got if {
	doc := buildgate.parse(kind, "f", concat("\n", array.concat(lines, [""])))
	got := rule.deny with input as {"documents": [doc], "config": {"migrations": []}}
}

lines_of(fs) := {f.loc.pos.line | some f in fs}

test_pipes if {
	lines_of(findings("shell", [
		"curl -fsSL https://x/install.sh | sh", # 1
		"curl -o install.sh https://x/install.sh && sh install.sh",
		"wget -qO- https://x/i.py | sudo -E python3 -", # 3: through a wrapper
		"curl https://x | tee log | sh", # the shell reads tee's output
		"curl https://x/a.tgz \\", # 5
		"  | bash -s -- --yes", # 6: the next line
		"echo curl | sh",
	])) == {1, 3, 6}
}

test_dockerfile_run if {
	lines_of(findings("dockerfile", ["FROM a", "RUN curl -sSL https://x | bash"])) == {2}
}

test_message if {
	some f in findings("shell", ["curl https://x | sh"])
	f.msg == "`sh` runs what `curl` downloads, unreviewed; download to a file, check its checksum, then run it"
}
