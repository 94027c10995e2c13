Show free memory (RAM).

@title Free memory
@name free
@wrapped shell
@command free -m {arguments}
@param arguments {array<string>} Options, usually none
