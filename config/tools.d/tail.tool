Show the last lines of a file.

@title Last lines of a file
@name tail
@wrapped shell
@command tail {arguments}
@param arguments {array<string>} [required] Option and file, e.g. ["-n", "5", "notes.txt"]
