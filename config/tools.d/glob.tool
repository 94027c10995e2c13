Find files by name.

@title Find files
@name glob
@wrapped shell
@command find {arguments} -type f
@param arguments {array<string>} [required] e.g. [".", "-name", "*.py"]
