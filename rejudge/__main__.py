from rejudge.cli import main

main()
