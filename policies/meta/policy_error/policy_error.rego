# METADATA
# title: A policy did something buildgate does not accept
# description: |
#   A rule of a user policy gave a fix for a file the run did not load as
#   a build file (a path outside the repository, under `.git`, or a file
#   the run never read), or a finding at a path outside the repository
#   root, or stopped with a runtime error. The fix is not applied and the
#   finding names the policy and the rule, so that a pull request that
#   brings its own policies cannot make `buildgate fix` write elsewhere.
# custom:
#   id: BG005
#   name: policy-error
#   severity: error
#   precision: very-high
#   tags: [robustness]
#   locked: true
package buildgate.meta.policy_error

# The engine reports this rule while it checks the findings' fixes and
# paths (lint/fixes.go); this package is its catalogue entry.
