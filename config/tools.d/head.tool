Show the first lines of a file.

@title First lines of a file
@name head
@wrapped shell
@command head {arguments}
@param arguments {array<string>} [required] Option and file, e.g. ["-n", "5", "notes.txt"]
