List files in a directory.

@title List directory
@name ls
@wrapped shell
@command ls -lA {arguments}
@param arguments {array<string>} Paths, e.g. ["src"]
