Show uptime and load.

@title How long the system has been up, and its load
@name uptime
@wrapped shell
@command uptime {arguments}
@param arguments {array<string>} Options, usually none
