from turtleboard.cli import main

try:
    code = main()
finally:
    # CPython notes a Ctrl-C that lands inside a string exec() (a dataclass or
    # a namedtuple being made while a module imports) and, under `python -m`,
    # ends the process by SIGINT whatever the exit code. main() has dealt with
    # that Ctrl-C; a string exec() clears the note.
    exec("")
raise SystemExit(code)
