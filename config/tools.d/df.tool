Show free disk space.

@title Disk space
@name df
@wrapped shell
@command df -h {arguments}
@param arguments {array<string>} Paths, e.g. ["."]
