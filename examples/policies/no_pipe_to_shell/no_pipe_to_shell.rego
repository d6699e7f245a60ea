# METADATA
# title: Download piped into a shell
# description: |
#   A download (curl, wget) whose output a shell or an interpreter reads
#   from the pipe runs code nobody reviewed, unpinned. The shell documents
#   give each command its place in its pipeline, so `curl … | sh` is one
#   query, whatever words, wrappers or line breaks surround it.
# custom:
#   id: EX003
#   name: no-pipe-to-shell
#   severity: warning
#   precision: very-high
#   tags: [example, supply-chain]
package buildgate.rules.example.no_pipe_to_shell

import data.buildgate.lib

# The command a download's output runs in: the next command of the same
# pipeline (the documents' commands[].pipeline: {id, index, pos}).
deny contains {"msg": msg, "loc": runner} if {
	some s in lib.scripts
	some download in s.script.commands
	download.name in {"curl", "wget"}
	some runner in s.script.commands
	runner.pipeline.id == download.pipeline.id
	runner.pipeline.index == download.pipeline.index + 1
	runner.name in interpreters
	msg := sprintf("`%s` runs what `%s` downloads, unreviewed; download to a file, check its checksum, then run it", [runner.name, download.name])
}

interpreters := {"sh", "bash", "dash", "zsh", "ksh", "python", "python3", "perl", "ruby", "node"}
