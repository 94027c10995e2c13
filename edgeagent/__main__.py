from edgeagent.cli import main

main()
