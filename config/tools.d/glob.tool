Find files by name pattern.

@title Find files
@name glob
@wrapped shell
@command find . -type f -name {arguments}
@param arguments {array<string>} [required] A name pattern, e.g. ["*.md"]
