"""One module per `turtleboard` command."""
