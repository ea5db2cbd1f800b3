from turtleboard.cli import main

raise SystemExit(main())
