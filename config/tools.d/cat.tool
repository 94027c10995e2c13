Show what a file contains.

@title Show what a file contains
@name cat
@wrapped shell
@command cat {arguments}
@param arguments {array<string>} [required] Files, e.g. ["notes.txt"]
