Count the lines, words or characters of files.

@title Count lines or words
@name wc
@wrapped shell
@command wc {arguments}
@param arguments {array<string>} [required] Option and files, e.g. ["-l", "notes.txt"]
