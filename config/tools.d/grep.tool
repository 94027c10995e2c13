Search file contents for a pattern.

@title Search files
@name grep
@wrapped shell
@command grep -rniI {arguments}
@param arguments {array<string>} [required] Pattern, then paths, e.g. ["TODO", "src"]
